import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Schema from "effect/Schema";
declare const User_base: Schema.Class<User, {
    id: typeof Schema.UUID;
    email: typeof Schema.String;
    createdAt: typeof Schema.Date;
}, Schema.Struct.Encoded<{
    id: typeof Schema.UUID;
    email: typeof Schema.String;
    createdAt: typeof Schema.Date;
}>, never, {
    readonly id: string;
} & {
    readonly createdAt: Date;
} & {
    readonly email: string;
}, {}, {}>;
export declare class User extends User_base {
}
interface UserRow {
    readonly id: string;
    readonly email: string;
    readonly password_hash: string;
    readonly created_at: Date;
}
export declare const toUser: (row: Pick<UserRow, "id" | "email" | "created_at">) => User;
declare const Users_base: Effect.Service.Class<Users, "Auth/Users", {
    readonly effect: Effect.Effect<{
        readonly insert: (email: string, passwordHash: string) => Effect.Effect<Option.Option<User>>;
        readonly findByEmail: (email: string) => Effect.Effect<Option.Option<UserRow>>;
        readonly findById: (id: string) => Effect.Effect<Option.Option<User>>;
    }, never, SqlClient.SqlClient>;
}>;
/** Users repository. Emails are stored trimmed and lower-cased. */
export declare class Users extends Users_base {
}
export {};
//# sourceMappingURL=Users.d.ts.map