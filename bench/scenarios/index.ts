/** Every scenario, in the order a full run takes them. */
import type { Scenario } from '../lib/types.js';
import { batchesScenario } from './batches.js';
import { bulkScenario } from './bulk.js';
import { composableScenario } from './composable.js';
import { dashboardScenario } from './dashboard.js';
import { burstScenario } from './burst.js';
import { cancelScenario } from './cancel.js';
import { coldScenario } from './cold.js';
import { messagesScenario } from './messages.js';
import { drainScenario } from './drain.js';
import { enqueueScenario } from './enqueue.js';
import { httpScenario } from './http.js';
import { largeScenario } from './large.js';
import { latencyScenario } from './latency.js';
import { limitsScenario } from './limits.js';
import { machineScenario } from './machine.js';
import { memoryScenario } from './memory.js';
import { multiHostScenario } from './multi-host.js';
import { telemetryScenario } from './telemetry.js';

export const SCENARIOS: Scenario[] = [enqueueScenario, burstScenario, bulkScenario, drainScenario, coldScenario, telemetryScenario, limitsScenario, composableScenario, latencyScenario, cancelScenario, messagesScenario, multiHostScenario, httpScenario, batchesScenario, dashboardScenario, largeScenario, memoryScenario, machineScenario];
