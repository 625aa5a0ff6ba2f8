package io.floe.kafka.api.admin;

import io.floe.agent.Agent;
import io.floe.kafka.api.KafkaApi;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.kafka.common.protocol.ApiMessage;

/** The operator's APIs, for the API registry. */
public final class AdminApis {

    private AdminApis() {}

    /** Every admin API over {@code agent}; {@code blocking} runs the ones that read or write the stores. */
    public static List<KafkaApi<? extends ApiMessage, ? extends ApiMessage>> all(Agent agent, Executor blocking) {
        ConfigAlteration alteration = new ConfigAlteration(agent);
        return List.of(
                new IncrementalAlterConfigsApi(agent.topics().configs(), alteration, blocking),
                new AlterConfigsApi(alteration, blocking),
                new DeleteRecordsApi(agent, blocking),
                new DescribeProducersApi(agent, blocking),
                new DescribeLogDirsApi(agent, blocking),
                new ListPartitionReassignmentsApi(),
                new ElectLeadersApi(agent, blocking));
    }
}
