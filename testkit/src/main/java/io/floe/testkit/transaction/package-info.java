/** An in-memory {@link io.floe.core.metadata.Transactions} for unit tests of the coordinator and the transaction APIs. */
package io.floe.testkit.transaction;
