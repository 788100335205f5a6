/** The base job machine's claim edge, as the engine hands it to the store. */
import { createMachineRegistry } from '../../src/engine/core/machine-registry.js';
import type { ClaimRule } from '../../src/store/store.js';

export const CLAIM_RULE: ClaimRule = createMachineRegistry(new Map()).claimRule;
