/**
 * The loop every leased background job of an agent runs (maintenance's jobs, Tableflow's tables):
 * take the job's lease in the metadata store or renew it, run a round while holding it, give it up on
 * shutdown. The lease keeps agents from doing the same work twice; the jobs' own conditional writes
 * are what keep data safe.
 */
package io.floe.core.lease;
