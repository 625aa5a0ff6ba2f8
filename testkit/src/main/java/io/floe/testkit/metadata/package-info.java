/**
 * The contract test suite of the metadata-store seam: every {@link io.floe.core.metadata.MetadataStore}
 * implementation runs the contract suite of each role ({@link io.floe.testkit.metadata.TopicMetadataContract} and
 * the others, on {@link io.floe.testkit.metadata.RoleContract}) from concrete tests
 * next to it. {@link io.floe.testkit.metadata.ProduceFixture} builds the uploads and batches those
 * tests commit.
 */
package io.floe.testkit.metadata;
