/**
 * The contract test suite of the object-store seam: every {@link io.floe.core.object.ObjectStore}
 * implementation runs {@link io.floe.testkit.object.ObjectStoreContract} from a concrete test next to it.
 */
package io.floe.testkit.object;
