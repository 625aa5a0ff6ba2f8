// KafkaJS against Floe: admin, idempotent keyed produce, a consumer group.
//
// Run by cli's KafkaClientsInteropIT with NODE_PATH=interop/kafkajs/node_modules (KafkaJS pinned there):
//     node kafkajs_basic.js BOOTSTRAP TOPIC PARTITIONS RECORDS GROUP TIMEOUT_S
// Creates TOPIC, produces RECORDS keyed records with idempotent: true (100 a send), reads them back in
// GROUP committing after every batch, and prints one JSON line: what was acknowledged and what was
// consumed (partition -> [[offset, sequence]...]), the group's committed offsets, and the errors met.
// The Java test makes the judgement.
'use strict';

const { Kafka, Partitioners, logLevel } = require('kafkajs');
const { version } = require('kafkajs/package.json');

async function main() {
  const [bootstrap, topic, partitionsArg, recordsArg, group, timeoutArg] = process.argv.slice(2);
  const partitions = Number(partitionsArg);
  const records = Number(recordsArg);
  const deadline = Date.now() + Number(timeoutArg) * 1000;
  const errors = [];
  const kafka = new Kafka({ clientId: 'floe-interop-kafkajs', brokers: [bootstrap], logLevel: logLevel.WARN });

  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });

  // The producer's partitioner, called again here only to know which acknowledged base offset
  // each record's offset counts from.
  const partitionOf = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: partitions }, (_, p) => ({ partitionId: p, leader: 0 }));
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  const acked = {};
  for (let start = 0; start < records; start += 100) {
    const messages = [];
    for (let i = start; i < Math.min(records, start + 100); i++) {
      messages.push({ key: `key-${i % 50}`, value: `value-${i}` });
    }
    const answers = await producer.send({ topic, acks: -1, messages });
    const baseOffsets = new Map(answers.map((a) => [a.partition, BigInt(a.baseOffset)]));
    const next = new Map();
    for (const message of messages) {
      const p = partitionOf({ topic, partitionMetadata, message: { ...message, key: Buffer.from(message.key) } });
      const offset = baseOffsets.get(p) + (next.get(p) || 0n);
      next.set(p, (next.get(p) || 0n) + 1n);
      (acked[p] = acked[p] || []).push([Number(offset), sequence(message.value)]);
    }
  }
  await producer.disconnect();

  const consumed = {};
  let count = 0;
  const seen = new Set();
  const consumer = kafka.consumer({ groupId: group, maxWaitTimeInMs: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let done;
  const allConsumed = new Promise((resolve) => { done = resolve; });
  // KafkaJS restarts a consumer after a retriable error (COORDINATOR_LOAD_IN_PROGRESS, say): only a
  // crash it does not recover from ends the wait.
  consumer.on(consumer.events.CRASH, (event) => {
    if (event.payload.restart === false) {
      errors.push(`consumer crashed: ${event.payload.error}`);
      done();
    }
  });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      for (const message of batch.messages) {
        // A consumer that KafkaJS restarted reads from its last commit again.
        const at = `${batch.partition}:${message.offset}`;
        if (seen.has(at)) continue;
        seen.add(at);
        (consumed[batch.partition] = consumed[batch.partition] || []).push(
          [Number(message.offset), sequence(message.value.toString())]);
        count++;
      }
      if (batch.messages.length > 0) {
        const next = (BigInt(batch.lastOffset()) + 1n).toString();
        await consumer.commitOffsets([{ topic, partition: batch.partition, offset: next }]);
      }
      if (count >= records) done();
    },
  });
  const timer = setTimeout(() => { errors.push(`only ${count} records consumed before the deadline`); done(); },
    Math.max(0, deadline - Date.now()));
  await allConsumed;
  clearTimeout(timer);
  await consumer.disconnect();

  const committed = {};
  for (const t of await admin.fetchOffsets({ groupId: group, topics: [topic] })) {
    for (const p of t.partitions) committed[p.partition] = Number(p.offset);
  }
  await admin.disconnect();

  console.log(JSON.stringify({ client: `KafkaJS ${version}`, acked, consumed, committed, errors }));
}

function sequence(value) {
  return Number(value.split('-')[1]);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
