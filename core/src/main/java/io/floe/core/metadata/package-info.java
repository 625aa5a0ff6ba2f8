/**
 * The metadata seam: role interfaces ({@link io.floe.core.metadata.TopicMetadata},
 * {@link io.floe.core.metadata.LogAppends}, {@link io.floe.core.metadata.LogReads},
 * {@link io.floe.core.metadata.LogRetention}, {@link io.floe.core.metadata.ConsumerOffsets},
 * {@link io.floe.core.metadata.AgentMembership}, {@link io.floe.core.metadata.Leases},
 * {@link io.floe.core.metadata.ObjectLifecycle}, {@link io.floe.core.metadata.Transactions}), their composition
 * {@link io.floe.core.metadata.MetadataStore}, the values that cross them, and
 * {@link io.floe.core.metadata.ForwardingMetadataStore} for decorators.
 *
 * <p>The contract, for every role and every implementation:
 * <ul>
 *   <li>Every method is one transaction: it applies entirely or not at all. Methods are safe to call
 *       from many threads.</li>
 *   <li>Reads see every write that returned before they began (read-your-writes for one store
 *       instance, and across instances sharing one database).</li>
 *   <li>Every method is a read, an idempotent write or a fenced write
 *       ({@link io.floe.core.metadata.OperationKind}, declared per method by
 *       {@link io.floe.core.metadata.MetadataOperation}). Only a fenced write can end unknown: its
 *       {@code Unknown} outcome ({@link io.floe.core.metadata.CommitOutcome.Unknown},
 *       {@link io.floe.core.metadata.RewriteOutcome.Unknown}), or an exception after it may have
 *       applied, means "may have applied", never "failed". The store never reports a fenced write
 *       refused when it applied, nor applied when it did not.</li>
 *   <li>Other failures throw {@link io.floe.core.metadata.MetadataStoreException}; topic lookups throw
 *       {@link io.floe.core.topic.UnknownTopicException} and
 *       {@link io.floe.core.topic.TopicExistsException} as documented.</li>
 * </ul>
 */
package io.floe.core.metadata;
