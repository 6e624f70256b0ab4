/**
 * The adapter for `lossless-json`, the only module that imports it: JSON whose numbers keep their text, so
 * 64-bit integers and `1.0` survive a parse and re-serialise of a document source as Elasticsearch keeps them.
 */
export { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';
