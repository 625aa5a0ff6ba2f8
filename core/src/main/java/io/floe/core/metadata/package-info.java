/**
 * The metadata-store seam ({@link io.floe.core.metadata.MetadataStore}) with its contract, and the
 * values that cross it: commits, their outcomes, producer state.
 */
package io.floe.core.metadata;
