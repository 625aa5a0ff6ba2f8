// KafkaJS's transactional producer against Floe, consume-transform-produce.
//
// Run by cli's KafkaClientsInteropIT with NODE_PATH=interop/kafkajs/node_modules (KafkaJS pinned there):
//     node kafkajs_transactions.js BOOTSTRAP INPUT OUTPUT PARTITIONS GROUP TRANSACTIONAL_ID TIMEOUT_S
// Writes 30 records to INPUT; a consumer of GROUP (subscribed, so a member of the group) reads them; a
// transactional producer copies them to OUTPUT in three transactions of 10, each with the positions sent
// to the transaction (sendOffsets): the first commits, the second aborts, the third commits and also
// writes an "end" record to every OUTPUT partition, so the readers know they read everything. After each
// transaction the admin client reads GROUP's committed offsets back. A read_committed and a
// read_uncommitted consumer then read OUTPUT from the start to the "end" records. Prints one JSON line;
// the Java test makes the judgement.
'use strict';

const { Kafka, Partitioners, logLevel } = require('kafkajs');
const { version } = require('kafkajs/package.json');

const INPUT_RECORDS = 30;
const CHUNK = 10;

async function main() {
  const [bootstrap, input, output, partitionsArg, group, transactionalId, timeoutArg] = process.argv.slice(2);
  const partitions = Number(partitionsArg);
  const deadline = Date.now() + Number(timeoutArg) * 1000;
  const errors = [];
  const kafka = new Kafka({ clientId: 'floe-interop-kafkajs', brokers: [bootstrap], logLevel: logLevel.WARN });

  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [input, output].map((topic) => ({ topic, numPartitions: partitions })),
    waitForLeaders: true,
  });

  const plain = kafka.producer({
    idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner,
  });
  await plain.connect();
  await plain.send({
    topic: input,
    acks: -1,
    messages: Array.from({ length: INPUT_RECORDS }, (_, i) => ({ key: `key-${i % 7}`, value: `in-${i}` })),
  });
  await plain.disconnect();

  const consumer = kafka.consumer({ groupId: group, maxWaitTimeInMs: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic: input, fromBeginning: true });
  const inputs = await collect(consumer, INPUT_RECORDS, deadline, errors, (batch, message) => ({
    partition: batch.partition, offset: BigInt(message.offset), key: message.key,
  }));
  if (inputs.length < INPUT_RECORDS) {
    await consumer.disconnect();
    return report({ errors });
  }

  const producer = kafka.producer({
    transactionalId, idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  const sent = { committed: [], aborted: [] };
  const expected = {};
  const committed = {};
  const positions = new Map();
  const plan = [['txn1', 'committed'], ['txn2', 'aborted'], ['txn3', 'committed']];
  for (const [number, [name, outcome]] of plan.entries()) {
    const transaction = await producer.transaction();
    const messages = [];
    inputs.slice(number * CHUNK, (number + 1) * CHUNK).forEach((record, i) => {
      const value = `${outcome}-${number * CHUNK + i}`;
      messages.push({ key: record.key, value });
      sent[outcome].push(value);
      positions.set(record.partition, record.offset + 1n);
    });
    if (name === 'txn3') {
      for (let partition = 0; partition < partitions; partition++) {
        messages.push({ partition, key: 'end', value: 'end' });
      }
    }
    await transaction.send({ topic: output, acks: -1, messages });
    const offsets = [...positions.entries()].sort(([a], [b]) => a - b)
      .map(([partition, offset]) => ({ partition, offset: offset.toString() }));
    await transaction.sendOffsets({ consumerGroupId: group, topics: [{ topic: input, partitions: offsets }] });
    if (outcome === 'committed') {
      await transaction.commit();
    } else {
      await transaction.abort();
    }
    expected[name] = Object.fromEntries(offsets.map(({ partition, offset }) => [partition, Number(offset)]));
    committed[name] = {};
    for (const t of await admin.fetchOffsets({ groupId: group, topics: [input] })) {
      for (const p of t.partitions) {
        if (Number(p.offset) >= 0) committed[name][p.partition] = Number(p.offset);
      }
    }
  }
  await producer.disconnect();
  await consumer.disconnect();
  await admin.disconnect();

  const readCommitted = await readOutput(kafka, output, group, partitions, false, deadline, errors);
  const readUncommitted = await readOutput(kafka, output, group, partitions, true, deadline, errors);
  report({ errors, sent, expected, committed, readCommitted, readUncommitted });
}

// OUTPUT from the start of every partition up to its "end" record: partition -> [[offset, value]...].
async function readOutput(kafka, topic, group, partitions, readUncommitted, deadline, errors) {
  const isolation = readUncommitted ? 'read_uncommitted' : 'read_committed';
  const reader = kafka.consumer({ groupId: `${group}-reader-${isolation}`, readUncommitted, maxWaitTimeInMs: 500 });
  await reader.connect();
  await reader.subscribe({ topic, fromBeginning: true });
  const ended = new Set();
  const read = {};
  await collect(reader, partitions, deadline, errors, (batch, message) => {
    if (message.value.toString() === 'end') {
      ended.add(batch.partition);
      return batch.partition;
    }
    (read[batch.partition] = read[batch.partition] || []).push([Number(message.offset), message.value.toString()]);
    return undefined;
  }, () => ended.size);
  if (ended.size < partitions) errors.push(`${isolation}: the end of only ${ended.size} partitions read`);
  await reader.disconnect();
  return read;
}

// Runs consumer without commits until `count()` reaches `wanted` or the deadline passes; answers what
// `take` returned for each message (undefined left out). A consumer that KafkaJS restarted reads from
// the start again: offsets already taken are skipped.
async function collect(consumer, wanted, deadline, errors, take, count) {
  const taken = [];
  const seen = new Set();
  const progress = count || (() => taken.length);
  let done;
  const finished = new Promise((resolve) => { done = resolve; });
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
        const at = `${batch.partition}:${message.offset}`;
        if (seen.has(at)) continue;
        seen.add(at);
        const value = take(batch, message);
        if (value !== undefined) taken.push(value);
      }
      if (progress() >= wanted) done();
    },
  });
  const timer = setTimeout(() => {
    errors.push(`only ${progress()} of ${wanted} read before the deadline`);
    done();
  }, Math.max(0, deadline - Date.now()));
  await finished;
  clearTimeout(timer);
  return taken;
}

function report(fields) {
  console.log(JSON.stringify({ ...fields, client: `KafkaJS ${version}` }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
