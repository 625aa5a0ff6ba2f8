/**
 * The object-store seam ({@link io.floe.core.object.ObjectStore}) with its contract, and the
 * local-directory implementation that is Floe's embedded default.
 */
package io.floe.core.object;
