/** Time for tests: a clock that moves only when the test moves it. */
package io.floe.testkit.time;
