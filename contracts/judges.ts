// Every contract family's plan and judges, in catalogue order: the one table a host runs, and the
// one place a contract rule's judge is found (a test keeps it equal to the catalogue's contract rules).
import { rulesOf, type RuleDef } from '../src/rules/catalogue.js';
import { AUTH } from './auth.js';
import { ERRORS } from './errors.js';
import { NATIVE } from './native.js';
import { NFT } from './nft.js';
import { NODE } from './node.js';
import type { AnyFamilyContract, Judge } from './plan.js';
import { UNIVERSAL } from './universal.js';

/** Every contract family, in catalogue order. */
export const CONTRACTS: readonly AnyFamilyContract[] = [AUTH, UNIVERSAL, NATIVE, NFT, NODE, ERRORS];

/** The contract rules, in catalogue order. */
export const CONTRACT_RULES: readonly string[] = rulesOf('contracts');

/** Each contract rule's judge and its family's contract. */
export const JUDGES: ReadonlyMap<string, { contract: AnyFamilyContract; judge: Judge<unknown> }> = new Map(
  CONTRACTS.flatMap((contract) =>
    Object.entries(contract.judges).map(([rule, judge]) => [rule, { contract, judge }] as const),
  ),
);

export type { RuleDef };
