"""librdkafka (confluent-kafka-python) against Floe: admin, idempotent keyed produce, a consumer group.

Run by cli's KafkaClientsInteropIT with /usr/bin/python3 (Debian's python3-confluent-kafka):
    librdkafka_basic.py BOOTSTRAP TOPIC PARTITIONS RECORDS GROUP TIMEOUT_S
Creates TOPIC, produces RECORDS keyed records with enable.idempotence=true, reads them back in GROUP
with a commit after every poll, and prints one JSON line: what was acknowledged and what was consumed
(partition -> [[offset, sequence]...]), the group's committed offsets, and the errors met. The Java
test makes the judgement; this script only stops early when the broker refuses something.
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition, libversion, version
from confluent_kafka.admin import AdminClient, NewTopic


def main():
    bootstrap, topic, partitions, records, group, timeout_s = sys.argv[1:7]
    partitions, records = int(partitions), int(records)
    deadline = time.monotonic() + float(timeout_s)
    errors = []
    common = {"bootstrap.servers": bootstrap, "client.id": "floe-interop-librdkafka"}

    admin = AdminClient(common)
    created = admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])
    created[topic].result(timeout=30)

    acked = {}

    def delivered(err, msg):
        if err is not None:
            errors.append("delivery: %s" % err)
        else:
            acked.setdefault(str(msg.partition()), []).append([msg.offset(), sequence(msg.value())])

    producer = Producer(dict(common, **{"enable.idempotence": True, "acks": "all", "linger.ms": 5}))
    for i in range(records):
        producer.produce(topic, key=("key-%d" % (i % 50)).encode(), value=("value-%d" % i).encode(),
                         on_delivery=delivered)
        producer.poll(0)
    left = producer.flush(max(1.0, deadline - time.monotonic()))
    if left:
        errors.append("%d records not acknowledged before the deadline" % left)

    consumed = {}
    count = 0
    consumer = Consumer(dict(common, **{
        "group.id": group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    }))
    consumer.subscribe([topic])
    while count < records and time.monotonic() < deadline and not errors:
        batch = consumer.consume(num_messages=500, timeout=1.0)
        for msg in batch:
            if msg.error() is not None:
                if msg.error().code() != KafkaError._PARTITION_EOF:
                    errors.append("consume: %s" % msg.error())
                continue
            consumed.setdefault(str(msg.partition()), []).append([msg.offset(), sequence(msg.value())])
            count += 1
        if batch:
            consumer.commit(asynchronous=False)
    committed = consumer.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=30)
    consumer.close()

    print(json.dumps({
        "client": "confluent-kafka-python %s, librdkafka %s" % (version()[0], libversion()[0]),
        "acked": acked,
        "consumed": consumed,
        "committed": {str(tp.partition): tp.offset for tp in committed},
        "errors": errors,
    }))


def sequence(value):
    return int(value.decode().split("-")[1])


if __name__ == "__main__":
    main()
