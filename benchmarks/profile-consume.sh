#!/usr/bin/env bash
# One system at a time, by hand: produce 1M x 1 KiB records (PRODUCES times), then ConsumerPerformance N times (and
# optionally the AssignConsumer three times), printing each tool's summary and the server's CPU per thread group for each.
# For profiling between e2e runs; the e2e driver (run-e2e.sh) is what compares Floe with Kafka.
# Usage: benchmarks/profile-consume.sh floe|kafka OUT_DIR
#   env: PRODUCES=N (default 1; each prints the producer's and the server's CPU), CONSUMES=N (default 2),
#        ASSIGN=1 (AssignConsumer x3 afterwards, each with the server's CPU), CPARGS="--print-metrics" (consumer
#        metrics into OUT_DIR/consumeN.txt), FLOE_JAVA_OPTS (agent JVM options).
# Needs the benchmark module built once (benchmarks/run-e2e.sh --help builds it) and, for floe, cli/target/floe.jar.
set -euo pipefail
system=${1:?floe or kafka}
out=${2:?output directory}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
kafka_cp=$(cat "$here/target/kafka-runtime.classpath")
driver_cp="$here/target/floe-benchmarks-0.1.0-SNAPSHOT.jar:$(cat "$here/target/driver.classpath")"
mkdir -p "$out"
# The tools run with the driver's JVM options (heap and collector matter to a consumer bound by its own CPU).
read -r -a tool_opts <<< "$(java -cp "$driver_cp" io.floe.benchmarks.e2e.KafkaBroker tool-jvm-options)"
work=$(mktemp -d)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
client=$(port)

threads() { # pid -> "thread-group user-ticks system-ticks" per thread
  for t in /proc/"$1"/task/*; do
    read -r line < "$t/stat" 2>/dev/null || continue
    rest=${line##*) }
    set -- $rest
    echo "$(sed 's/[-#0-9]*$//;s/ *$//;s/ /_/g' "$t/comm") ${12} ${13}"
  done
}
cpu_diff() { # before after -> CPU ms per thread group, largest first
  awk 'NR==FNR {u[$1]-=$2; s[$1]-=$3; next} {u[$1]+=$2; s[$1]+=$3}
       END {for (k in u) if (u[k]+s[k] > 0) printf "  %-24s user %6d ms  sys %6d ms\n", k, u[k]*10, s[k]*10}' \
    <(awk '{a[$1]+=$2; b[$1]+=$3} END {for (k in a) print k, a[k], b[k]}' "$1") \
    <(awk '{a[$1]+=$2; b[$1]+=$3} END {for (k in a) print k, a[k], b[k]}' "$2") | sort -k3 -n -r | head -8
}

if [[ "$system" == floe ]]; then
  http=$(port)
  "$repo/bin/floe" agent --listen 127.0.0.1:"$client" --http-listen 127.0.0.1:"$http" --data-dir "$work/data" \
    > "$out/server.log" 2>&1 &
  server=$!
  until curl -sf "http://127.0.0.1:$http/metrics" > /dev/null; do sleep 0.3; done
  "$repo/bin/floe" topics create bench --partitions 6 --bootstrap 127.0.0.1:"$client" > /dev/null
else
  controller=$(port)
  # The driver's broker settings and JVM options (io.floe.benchmarks.e2e.KafkaBroker).
  java -cp "$driver_cp" io.floe.benchmarks.e2e.KafkaBroker server-properties "$client" "$controller" "$work/logs" 6 \
    > "$work/server.properties"
  java -cp "$kafka_cp" kafka.tools.StorageTool format -t "$(python3 -c 'import uuid,base64; print(base64.urlsafe_b64encode(uuid.uuid4().bytes).decode()[:22])')" \
    -c "$work/server.properties" --standalone > "$out/format.log" 2>&1
  # shellcheck disable=SC2046 # the options are separate words
  java $(java -cp "$driver_cp" io.floe.benchmarks.e2e.KafkaBroker jvm-options) -cp "$kafka_cp" kafka.Kafka \
    "$work/server.properties" > "$out/server.log" 2>&1 &
  server=$!
  until java -cp "$kafka_cp" org.apache.kafka.tools.TopicCommand --bootstrap-server 127.0.0.1:"$client" --create \
      --topic bench --partitions 6 > /dev/null 2>&1; do sleep 1; done
fi
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT

for i in $(seq 1 "${PRODUCES:-1}"); do
  threads "$server" > "$out/threads-before-produce-$i.txt"
  /usr/bin/time -f "producer CPU: user %U s sys %S s" -o "$out/producer-cpu-$i.txt" \
    java "${tool_opts[@]}" -cp "$kafka_cp" org.apache.kafka.tools.ProducerPerformance --bootstrap-server 127.0.0.1:"$client" \
    --topic bench --num-records 1000000 --record-size 1024 --throughput -1 \
    --command-property acks=all linger.ms=5 batch.size=131072 2>&1 | tail -1 > "$out/produce$i.txt"
  threads "$server" > "$out/threads-after-produce-$i.txt"
  echo "produce $i: $(cat "$out/produce$i.txt")"
  echo "  $(cat "$out/producer-cpu-$i.txt")"
  cpu_diff "$out/threads-before-produce-$i.txt" "$out/threads-after-produce-$i.txt"
done
for i in $(seq 1 "${CONSUMES:-2}"); do
  threads "$server" > "$out/threads-before-$i.txt"
  java "${tool_opts[@]}" -cp "$kafka_cp" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server 127.0.0.1:"$client" \
    --topic bench --num-records 1000000 --timeout 30000 --group "profile-$i" ${CPARGS:-} > "$out/consume$i.txt" 2>&1
  threads "$server" > "$out/threads-after-$i.txt"
  echo "consume $i: $(grep '^20' "$out/consume$i.txt" | tail -1)"
  cpu_diff "$out/threads-before-$i.txt" "$out/threads-after-$i.txt"
done
if [[ "${ASSIGN:-0}" == 1 ]]; then
  for i in 1 2 3; do
    threads "$server" > "$out/threads-before-assign-$i.txt"
    java "${tool_opts[@]}" -cp "$driver_cp" io.floe.benchmarks.e2e.AssignConsumer 127.0.0.1:"$client" bench 1000000 30000 2>/dev/null \
      | grep '^assign-consumer'
    threads "$server" > "$out/threads-after-assign-$i.txt"
    cpu_diff "$out/threads-before-assign-$i.txt" "$out/threads-after-assign-$i.txt"
  done
fi
