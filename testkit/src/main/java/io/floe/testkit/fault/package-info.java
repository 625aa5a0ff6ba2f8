/** Fault-injecting decorators of the seams, for tests that must see Floe survive a failing store. */
package io.floe.testkit.fault;
