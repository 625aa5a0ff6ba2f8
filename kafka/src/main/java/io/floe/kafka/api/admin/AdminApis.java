package io.floe.kafka.api.admin;

import io.floe.agent.Agent;
import io.floe.kafka.api.ApiRegistry;
import org.apache.kafka.common.protocol.ApiKeys;

/** The operator's APIs, for the API registry. */
public final class AdminApis {

    private AdminApis() {}

    /** Declares every admin API over {@code agent}; the ones that read or write the stores are blocking. */
    public static void register(ApiRegistry.Builder apis, Agent agent) {
        ConfigAlteration alteration = new ConfigAlteration(agent);
        apis.blocking(
                        ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                        0,
                        1,
                        new IncrementalAlterConfigsApi(agent.topics().configs(), alteration))
                .blocking(ApiKeys.ALTER_CONFIGS, 0, 2, new AlterConfigsApi(alteration))
                .blocking(ApiKeys.DELETE_RECORDS, 0, 2, new DeleteRecordsApi(agent))
                .blocking(ApiKeys.DESCRIBE_PRODUCERS, 0, 0, new DescribeProducersApi(agent))
                .blocking(ApiKeys.DESCRIBE_LOG_DIRS, 1, 5, new DescribeLogDirsApi(agent))
                .eventLoop(ApiKeys.LIST_PARTITION_REASSIGNMENTS, 0, 0, new ListPartitionReassignmentsApi())
                .blocking(ApiKeys.ELECT_LEADERS, 0, 2, new ElectLeadersApi(agent));
    }
}
