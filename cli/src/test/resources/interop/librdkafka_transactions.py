"""librdkafka's (confluent-kafka-python) transactional producer against Floe, consume-transform-produce.

Run by cli's KafkaClientsInteropIT with /usr/bin/python3 (Debian's python3-confluent-kafka):
    librdkafka_transactions.py BOOTSTRAP INPUT OUTPUT PARTITIONS GROUP TRANSACTIONAL_ID TIMEOUT_S
Writes 30 records to INPUT; a consumer of GROUP (subscribed, so a member of the group) reads them; a
transactional producer copies them to OUTPUT in three transactions of 10, each with the consumer's
positions sent to the transaction: the first commits, the second aborts, the third commits and also
writes an "end" record to every OUTPUT partition, so the readers know they read everything. After each
transaction the consumer reads GROUP's committed offsets back. A read_committed and a read_uncommitted
consumer then read OUTPUT from the start to the "end" records. Prints one JSON line; the Java test
makes the judgement.
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition, libversion, version
from confluent_kafka.admin import AdminClient, NewTopic

INPUT_RECORDS = 30
CHUNK = 10


def main():
    bootstrap, input_topic, output_topic, partitions, group, transactional_id, timeout_s = sys.argv[1:8]
    partitions = int(partitions)
    deadline = time.monotonic() + float(timeout_s)
    errors = []
    common = {"bootstrap.servers": bootstrap, "client.id": "floe-interop-librdkafka"}

    admin = AdminClient(common)
    created = admin.create_topics([NewTopic(t, num_partitions=partitions, replication_factor=1)
                                   for t in (input_topic, output_topic)])
    for future in created.values():
        future.result(timeout=30)

    plain = Producer(dict(common, **{"enable.idempotence": True}))
    for i in range(INPUT_RECORDS):
        plain.produce(input_topic, key=("key-%d" % (i % 7)).encode(), value=("in-%d" % i).encode())
    if plain.flush(30):
        raise SystemExit("input records not acknowledged")

    consumer = Consumer(dict(common, **{
        "group.id": group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "isolation.level": "read_committed",
    }))
    consumer.subscribe([input_topic])
    inputs = []
    while len(inputs) < INPUT_RECORDS and time.monotonic() < deadline:
        for msg in consumer.consume(num_messages=INPUT_RECORDS, timeout=1.0):
            if msg.error() is None:
                inputs.append(msg)
            elif msg.error().code() != KafkaError._PARTITION_EOF:
                errors.append("consume input: %s" % msg.error())
    if len(inputs) < INPUT_RECORDS:
        errors.append("only %d input records consumed before the deadline" % len(inputs))
        return report(errors=errors)

    producer = Producer(dict(common, **{"transactional.id": transactional_id}))
    producer.init_transactions(30)
    sent = {"committed": [], "aborted": []}
    expected, committed = {}, {}
    positions = {}
    for number, (name, outcome) in enumerate([("txn1", "committed"), ("txn2", "aborted"), ("txn3", "committed")]):
        chunk = inputs[number * CHUNK:(number + 1) * CHUNK]
        producer.begin_transaction()
        for index, msg in enumerate(chunk, start=number * CHUNK):
            value = "%s-%d" % (outcome, index)
            producer.produce(output_topic, key=msg.key(), value=value.encode())
            sent[outcome].append(value)
            positions[msg.partition()] = msg.offset() + 1
        if name == "txn3":
            for partition in range(partitions):
                producer.produce(output_topic, partition=partition, key=b"end", value=b"end")
        # abort_transaction purges records still queued in the client, which would never reach the
        # agent: flush, so that the aborted transaction's records are in the log and read_uncommitted
        # has something to read.
        if producer.flush(30):
            raise SystemExit("records of %s not acknowledged" % name)
        offsets = [TopicPartition(input_topic, p, o) for p, o in sorted(positions.items())]
        producer.send_offsets_to_transaction(offsets, consumer.consumer_group_metadata(), 30)
        if outcome == "committed":
            producer.commit_transaction(30)
        else:
            producer.abort_transaction(30)
        expected[name] = {str(p): o for p, o in sorted(positions.items())}
        read = consumer.committed([TopicPartition(input_topic, p) for p in range(partitions)], timeout=30)
        committed[name] = {str(tp.partition): tp.offset for tp in read if tp.offset >= 0}
    consumer.close()

    report(errors=errors, sent=sent, expected=expected, committed=committed,
           readCommitted=read_output(common, output_topic, group, partitions, "read_committed", deadline, errors),
           readUncommitted=read_output(common, output_topic, group, partitions, "read_uncommitted",
                                       deadline, errors))


def read_output(common, topic, group, partitions, isolation, deadline, errors):
    """OUTPUT from offset 0 of every partition up to its "end" record: partition -> [[offset, value]...]."""
    reader = Consumer(dict(common, **{
        "group.id": "%s-reader-%s" % (group, isolation),
        "enable.auto.commit": False,
        "isolation.level": isolation,
    }))
    reader.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    read, ended = {}, set()
    while len(ended) < partitions and time.monotonic() < deadline:
        for msg in reader.consume(num_messages=100, timeout=1.0):
            if msg.error() is not None:
                if msg.error().code() != KafkaError._PARTITION_EOF:
                    errors.append("%s: %s" % (isolation, msg.error()))
                continue
            if msg.value() == b"end":
                ended.add(msg.partition())
            else:
                read.setdefault(str(msg.partition()), []).append([msg.offset(), msg.value().decode()])
    if len(ended) < partitions:
        errors.append("%s: the end of only %d partitions read before the deadline" % (isolation, len(ended)))
    reader.close()
    return read


def report(**fields):
    fields["client"] = "confluent-kafka-python %s, librdkafka %s" % (version()[0], libversion()[0])
    print(json.dumps(fields))


if __name__ == "__main__":
    main()
