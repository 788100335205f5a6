/**
 * An edge's route as SVG path data: the polyline elk laid out, its bends
 * rounded, stopped short by an arrowhead whose tip is the route's end. Pure
 * and free of Node: the SVG writer and the dashboard page draw the same lines.
 */
import type { Point } from './layout-types.js';

const CORNER_RADIUS = 6;
const ARROW_LENGTH = 9;
const ARROW_HALF_WIDTH = 4.5;

/** A coordinate with at most one decimal, never `-0`: stable text for stable input. */
export function num(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return String(rounded === 0 ? 0 : rounded);
}

function unit(from: Point, to: Point): Point {
  const length = Math.hypot(to.x - from.x, to.y - from.y) || 1;
  return { x: (to.x - from.x) / length, y: (to.y - from.y) / length };
}

/** `line`: the route with rounded bends, ending where the arrowhead starts; `arrow`: the arrowhead. */
export function routePaths(points: readonly Point[]): { line: string; arrow: string } {
  const end = points[points.length - 1]!;
  const before = points[points.length - 2] ?? end;
  const dir = unit(before, end);
  const stop = { x: end.x - dir.x * ARROW_LENGTH, y: end.y - dir.y * ARROW_LENGTH };
  const route = [...points.slice(0, -1), stop];
  let line = `M${num(route[0]!.x)} ${num(route[0]!.y)}`;
  for (let i = 1; i < route.length - 1; i++) {
    const [prev, at, next] = [route[i - 1]!, route[i]!, route[i + 1]!];
    const radius = Math.min(CORNER_RADIUS, Math.hypot(at.x - prev.x, at.y - prev.y) / 2, Math.hypot(next.x - at.x, next.y - at.y) / 2);
    const [inDir, outDir] = [unit(prev, at), unit(at, next)];
    line += ` L${num(at.x - inDir.x * radius)} ${num(at.y - inDir.y * radius)}`;
    line += ` Q${num(at.x)} ${num(at.y)} ${num(at.x + outDir.x * radius)} ${num(at.y + outDir.y * radius)}`;
  }
  line += ` L${num(stop.x)} ${num(stop.y)}`;
  const side = { x: -dir.y * ARROW_HALF_WIDTH, y: dir.x * ARROW_HALF_WIDTH };
  const arrow = `M${num(end.x)} ${num(end.y)} L${num(stop.x + side.x)} ${num(stop.y + side.y)} L${num(stop.x - side.x)} ${num(stop.y - side.y)} Z`;
  return { line, arrow };
}
