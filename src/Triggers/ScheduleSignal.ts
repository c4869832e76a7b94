/**
 * Postgres channel carrying the id of a trigger whose schedule was set,
 * changed or removed: every instance's scheduling fiber re-reads its earliest
 * tick. (Its own module so the trigger use cases and the fiber share the
 * name without importing each other.)
 */
export const schedulesChannel = "pts_schedule_changed"
