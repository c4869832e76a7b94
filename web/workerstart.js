// What "Start a worker" tells to run: plain strings, no DOM, so a test reads them as shown.

/** Installs the agent alone (packages/worker of the service's repository, packed with `npm pack`): no server dependencies. */
export const installCommand = "npm install -g ./pipeline-trigger-worker-*.tgz"

/**
 * Starts the agent with a one-time registration token. The token is given in
 * the environment, never as an argument: a process's arguments are visible to
 * every user of the machine (`ps`), its environment is not.
 */
export const startCommand = (origin, registrationToken) =>
  `PIPELINE_REGISTRATION_TOKEN=${registrationToken} pipeline-worker --url ${origin} --label my-worker`
