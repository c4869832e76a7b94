import { HttpServer } from "@effect/platform";
import * as Layer from "effect/Layer";
import { ApiKeys } from "./ApiKeys/ApiKeys.js";
import { AuditLog } from "./Audit/AuditLog.js";
import { Policy } from "./Tenancy/Policy.js";
import { Environments } from "./Tenancy/Environments.js";
import { Members } from "./Tenancy/Members.js";
import { Workspaces } from "./Tenancy/Workspaces.js";
import { LoginThrottle } from "./Auth/LoginThrottle.js";
import { Sessions } from "./Auth/Sessions.js";
import { Users } from "./Auth/Users.js";
import { SecretBox } from "./Crypto/SecretBox.js";
import { Readiness } from "./Health/Readiness.js";
import { Origins } from "./Http/Origins.js";
import { RunRequests } from "./Runs/RunRequests.js";
import { RunsRepo } from "./Runs/RunsRepo.js";
import * as Scheduler from "./Scheduler/Scheduler.js";
import { UrlGuard } from "./Webhooks/UrlGuard.js";
import { DeliveriesRepo } from "./Webhooks/DeliveriesRepo.js";
import { Triggers } from "./Triggers/Triggers.js";
import { TriggersRepo } from "./Triggers/TriggersRepo.js";
import { Workers } from "./Workers/Workers.js";
import { WorkersRepo } from "./Workers/WorkersRepo.js";
import { Dashboard } from "./Dashboard/Dashboard.js";
import { RunSeries } from "./Dashboard/RunSeries.js";
import { RunHistory } from "./Runs/RunHistory.js";
import * as KeyCheck from "./Config/KeyCheck.js";
/** Domain services; they need a `SqlClient` and `AppConfig` from the host. */
export declare const ServicesLive: Layer.Layer<Users | DeliveriesRepo | RunHistory | AuditLog | Policy | ApiKeys | Workspaces | Environments | Members | Origins | LoginThrottle | Sessions | SecretBox | Readiness | RunsRepo | WorkersRepo | UrlGuard | TriggersRepo | Triggers | Workers | Dashboard | RunSeries, import("@effect/sql/SqlError").SqlError | KeyCheck.KeyMismatch, import("@effect/sql/SqlClient").SqlClient | import("./Db/Notifications.js").Notifications | import("./Config/AppConfig.js").AppConfig>;
export declare const BackgroundLive: Layer.Layer<RunRequests | Scheduler.Services, import("effect/ConfigError").ConfigError, import("@effect/sql/SqlClient").SqlClient | DeliveriesRepo | import("./Db/Notifications.js").Notifications | import("./Config/AppConfig.js").AppConfig | SecretBox | RunsRepo | UrlGuard>;
export declare const ApiLive: Layer.Layer<import("@effect/platform/HttpApi").Api, never, import("@effect/sql/SqlClient").SqlClient | Users | DeliveriesRepo | RunHistory | Policy | ApiKeys | Workspaces | Environments | Members | Origins | LoginThrottle | Sessions | Readiness | import("./Scheduler/RunEvents.js").RunEvents | RunsRepo | RunRequests | import("./Scheduler/WorkerProtocol.js").WorkerProtocol | WorkersRepo | TriggersRepo | Triggers | Workers | Dashboard | RunSeries>;
/**
 * The HTTP application: every endpoint, the OpenAPI document, the docs page,
 * CORS and the error model. Needs an `HttpServer`, a `SqlClient` and `AppConfig`.
 */
export declare const HttpLive: Layer.Layer<never, import("@effect/sql/SqlError").SqlError | import("effect/ConfigError").ConfigError | KeyCheck.KeyMismatch, import("@effect/sql/SqlClient").SqlClient | import("./Db/Notifications.js").Notifications | import("@effect/platform/HttpRouter").HttpRouter.DefaultServices | import("./Config/AppConfig.js").AppConfig | HttpServer.HttpServer>;
//# sourceMappingURL=App.d.ts.map