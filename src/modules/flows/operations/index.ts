// Every flow operation (docs/flows.md "Operations"), in the order GET /flows/operations lists them.
import type { AnyFlowOperation } from '../operation.ts';
import { conditionOperation } from './condition.ts';
import { delayOperation } from './delay.ts';
import { createItemOperation, deleteItemOperation, readItemsOperation, updateItemOperation } from './items.ts';
import { logOperation } from './log.ts';
import { requestOperation } from './request.ts';
import { runCommandOperation } from './runCommand.ts';
import { sendEmailOperation } from './sendEmail.ts';
import { transformOperation } from './transform.ts';
import { triggerFlowOperation } from './triggerFlow.ts';

export const flowOperations: readonly AnyFlowOperation[] = [
  conditionOperation,
  transformOperation,
  logOperation,
  readItemsOperation,
  createItemOperation,
  updateItemOperation,
  deleteItemOperation,
  requestOperation,
  sendEmailOperation,
  runCommandOperation,
  triggerFlowOperation,
  delayOperation,
];

const byKey: ReadonlyMap<string, AnyFlowOperation> = new Map(flowOperations.map((operation) => [operation.key, operation]));

/** The operation of a node's `operation` key; undefined for one that is not registered. */
export function findOperation(key: string): AnyFlowOperation | undefined {
  return byKey.get(key);
}
