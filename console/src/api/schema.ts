// The API's types: the TypeScript SDK's, generated from infra/openapi.json by `make generate` and
// drift-checked in `make test` (one generator, one client for the SDK and the console).
export type { components, operations, paths } from "../../../sdks/typescript/src/generated/schema";
