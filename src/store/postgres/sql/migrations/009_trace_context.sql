-- The trace context a job was enqueued in (OpenTelemetry, W3C Trace
-- Context; the SQLite file's migration 013): JSON text
-- `{"traceparent": "00-…", "tracestate": "…"}`, or NULL when nothing traced
-- the enqueue. Each attempt's span continues that trace, in whichever
-- process runs it.
ALTER TABLE {{schema}}.jobs ADD COLUMN trace_context text;
