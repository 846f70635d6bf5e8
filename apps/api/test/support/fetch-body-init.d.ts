// The generated hey-api client is written for a browser's lib, where `BodyInit` is a global type;
// @types/node declares Node's fetch (RequestInit, Request) but not that name. It is the body Node's
// RequestInit accepts, so the client type-checks here without the whole DOM lib in the API's program.
type BodyInit = NonNullable<RequestInit['body']>;
