/**
 * The contract test suite of the metadata-store seam: every {@link io.floe.core.metadata.MetadataStore}
 * implementation runs {@link io.floe.testkit.metadata.MetadataStoreContract} from a concrete test
 * next to it. {@link io.floe.testkit.metadata.ProduceFixture} builds the uploads and batches those
 * tests commit.
 */
package io.floe.testkit.metadata;
