#!/usr/bin/env node
// Writes docs/dataset-schema.md from the dataset schema (crate/core/src/dataset/schema.rs): runs
// the Rust test that compares the committed document, asking it to write the document first.
import { writeDocFromTest } from './doc-from-test.mjs'

writeDocFromTest('dataset::tests::dataset_schema_doc_is_current', 'CLAUDE_JSONL_WRITE_DATASET_SCHEMA')
