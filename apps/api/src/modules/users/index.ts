// The users module's public face: what other modules may use of it.
export * as usersRepo from './repo';
export { createUsersService, type UsersService } from './service';
