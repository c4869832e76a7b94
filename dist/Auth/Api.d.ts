import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform";
import * as Schema from "effect/Schema";
import { Conflict, Forbidden, NotFound, TooManyRequests, Unauthorized } from "../Domain/Errors.js";
import { UserAuthentication } from "./Security.js";
import { User } from "./Users.js";
export declare const Credentials: Schema.Struct<{
    email: Schema.transform<Schema.transform<typeof Schema.Trim, typeof Schema.Lowercase>, Schema.filter<Schema.filter<typeof Schema.String>>>;
    password: Schema.filter<Schema.filter<typeof Schema.String>>;
}>;
export declare const LoginCredentials: Schema.Struct<{
    email: Schema.transform<Schema.transform<typeof Schema.Trim, typeof Schema.Lowercase>, Schema.filter<Schema.filter<typeof Schema.String>>>;
    password: Schema.filter<typeof Schema.String>;
}>;
declare const AuthApi_base: HttpApiGroup.HttpApiGroup<"auth", HttpApiEndpoint.HttpApiEndpoint<"register", "POST", never, never, {
    readonly email: string;
    readonly password: string;
}, never, User, Forbidden | Conflict, never, never> | HttpApiEndpoint.HttpApiEndpoint<"login", "POST", never, never, {
    readonly email: string;
    readonly password: string;
}, never, User, Unauthorized | Forbidden | TooManyRequests, never, never> | HttpApiEndpoint.HttpApiEndpoint<"logout", "POST", never, never, never, never, void, Unauthorized | Forbidden, UserAuthentication, never> | HttpApiEndpoint.HttpApiEndpoint<"me", "GET", never, never, never, never, User, Unauthorized | Forbidden, UserAuthentication, never> | HttpApiEndpoint.HttpApiEndpoint<"lookup", "GET", never, {
    readonly email: string;
}, never, never, {
    readonly id: string;
    readonly email: string;
}, Unauthorized | Forbidden | NotFound, UserAuthentication, never>, never, never, false>;
export declare class AuthApi extends AuthApi_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map