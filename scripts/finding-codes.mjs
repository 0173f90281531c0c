#!/usr/bin/env node
// Writes docs/finding-codes.md from the validator's finding codes (crate/core/src/validate/codes.rs):
// runs the Rust test that compares the committed table, asking it to write the table first.
import { writeDocFromTest } from './doc-from-test.mjs'

writeDocFromTest('validate::tests::finding_codes_table_is_current', 'CLAUDE_JSONL_WRITE_FINDING_CODES')
