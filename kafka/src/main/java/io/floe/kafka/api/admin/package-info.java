/**
 * The operator's Kafka APIs: changing topic configs (AlterConfigs, IncrementalAlterConfigs), moving a
 * partition's log start (DeleteRecords), and the questions admin tools ask about producers, log
 * directories, reassignments and leader elections, answered from what Floe has instead of replicas
 * and disks. One small class per API, registered through {@link io.floe.kafka.api.admin.AdminApis}.
 */
package io.floe.kafka.api.admin;
