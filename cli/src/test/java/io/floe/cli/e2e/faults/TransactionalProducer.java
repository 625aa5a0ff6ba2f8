package io.floe.cli.e2e.faults;

import io.floe.cli.e2e.faults.TransactionalRunChecker.Outcome;
import io.floe.cli.e2e.faults.TransactionalRunChecker.Sent;
import io.floe.cli.e2e.faults.TransactionalRunChecker.Transaction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ApplicationRecoverableException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A transactional producer (acks=all, its own transactional.id) on its own thread, running one
 * transaction after another at a steady pace until stopped: each sends 2 to 6 records to seeded
 * random partitions (at least two), and a seeded share is flushed and then aborted on purpose. Every
 * transaction's outcome, as far as the producer can know it, is recorded. Errors are handled as
 * kafka-clients documents: a fatal one (fenced, a sequence or authorization error, a client in its
 * error state) closes the producer and a new one with the same transactional.id takes over (its
 * initTransactions aborts what the old one left open); another error aborts the transaction; a
 * commitTransaction that times out is called again, and if it still does not return, or fails
 * otherwise, the transaction's outcome is unknown.
 */
final class TransactionalProducer {

    private static final int RECORDS_MIN = 2;
    private static final int RECORDS_MAX = 6;
    private static final int ABORT_PERCENT = 20;
    private static final int COMMIT_ATTEMPTS = 3;
    private static final int INIT_ATTEMPTS = 5;
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final int id;
    private final String bootstrap;
    private final String topic;
    private final int partitions;
    private final Duration interval;
    private final Random random;
    private final Queue<Transaction> transactions = new ConcurrentLinkedQueue<>();
    private final Queue<String> errors = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean stopping;
    private int producersOpened; // the producer thread's only

    TransactionalProducer(int id, String bootstrap, String topic, int partitions, Duration interval, long seed) {
        this.id = id;
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.partitions = partitions;
        this.interval = interval;
        this.random = new Random(seed);
        this.thread = new Thread(this::run, "transactional-producer-" + id);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Ends the transaction under way, closes the producer, and waits; false if {@code timeout} passed. */
    boolean stop(Duration timeout) throws InterruptedException {
        stopping = true;
        thread.join(timeout.toMillis());
        return !thread.isAlive();
    }

    List<Transaction> transactions() {
        return List.copyOf(transactions);
    }

    /** Errors the producer met, each with what it did about it. */
    List<String> errors() {
        return List.copyOf(errors);
    }

    /** How many producers (clients) this one opened: more than one after fatal errors. */
    int producersOpened() {
        return producersOpened;
    }

    private void run() {
        KafkaProducer<byte[], byte[]> producer = null;
        long start = System.nanoTime();
        try {
            for (int txn = 0; !stopping; txn++) {
                // Pacing, not synchronization: wait for this transaction's slot in the schedule.
                LockSupport.parkNanos(start + txn * interval.toNanos() - System.nanoTime());
                if (producer == null) {
                    producer = open();
                }
                if (producer != null && !transact(producer, txn)) {
                    producer.close(CLOSE_TIMEOUT);
                    producer = null;
                }
            }
            if (producer == null) {
                producer = open(); // its initTransactions aborts what the last one left open
            }
        } catch (RuntimeException e) {
            errors.add("producer " + id + " stopped: " + e);
        } finally {
            if (producer != null) {
                producer.close(CLOSE_TIMEOUT);
            }
        }
    }

    /** A new producer with its transactions initialized, or null (recorded) if that failed. */
    private KafkaProducer<byte[], byte[]> open() {
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties());
        producersOpened++;
        for (int attempt = 1; attempt <= INIT_ATTEMPTS; attempt++) {
            try {
                producer.initTransactions();
                return producer;
            } catch (TimeoutException e) {
                errors.add("initTransactions attempt " + attempt + ", retried: " + e); // documented as safe to retry
            } catch (KafkaException e) {
                errors.add("initTransactions, producer closed: " + e);
                break;
            }
        }
        producer.close(CLOSE_TIMEOUT);
        return null;
    }

    /** Runs transaction {@code txn}; false if the producer must be closed and replaced. */
    private boolean transact(KafkaProducer<byte[], byte[]> producer, int txn) {
        String txnId = String.format("t%d-%06d", id, txn);
        List<Sent> sent = new ArrayList<>();
        AtomicReference<Exception> sendError = new AtomicReference<>();
        boolean abort = random.nextInt(100) < ABORT_PERCENT;
        int count = RECORDS_MIN + random.nextInt(RECORDS_MAX - RECORDS_MIN + 1);
        try {
            producer.beginTransaction();
            for (int index = 0; index < count; index++) {
                int partition = random.nextInt(partitions);
                if (index == 1 && partition == sent.get(0).partition()) {
                    partition = (partition + 1) % partitions; // at least two partitions
                }
                Sent record = new Sent(txnId + "-" + index, partition);
                sent.add(record);
                producer.send(
                        new ProducerRecord<>(
                                topic, partition, null, record.value().getBytes(StandardCharsets.UTF_8)),
                        (metadata, error) -> {
                            if (error != null) {
                                sendError.compareAndSet(null, error);
                            }
                        });
            }
            if (abort) {
                producer.flush(); // the records reach the log, so read_committed readers have something to skip
                producer.abortTransaction();
                transactions.add(new Transaction(txnId, Outcome.ABORTED, sent, "aborted on purpose"));
                return true;
            }
        } catch (KafkaException | IllegalStateException e) {
            transactions.add(new Transaction(txnId, Outcome.ABORTED, sent, "given up before its commit: " + e));
            return abortAfter(producer, e);
        }
        return commit(producer, txnId, sent, sendError);
    }

    private boolean commit(
            KafkaProducer<byte[], byte[]> producer,
            String txnId,
            List<Sent> sent,
            AtomicReference<Exception> sendError) {
        for (int attempt = 1; ; attempt++) {
            try {
                producer.commitTransaction();
                transactions.add(new Transaction(txnId, Outcome.COMMITTED, sent, "committed"));
                return true;
            } catch (TimeoutException e) {
                // Documented: the commit may still complete; calling it again is safe, anything else is not.
                errors.add(txnId + " commitTransaction attempt " + attempt + " timed out: " + e);
                if (attempt == COMMIT_ATTEMPTS) {
                    transactions.add(new Transaction(
                            txnId, Outcome.UNKNOWN, sent, "commit timed out " + attempt + " times: " + e));
                    return false;
                }
            } catch (KafkaException | IllegalStateException e) {
                // A failed send puts the client in an abortable state in which it never sends the commit.
                transactions.add(
                        sendError.get() != null
                                ? new Transaction(txnId, Outcome.ABORTED, sent, "a send failed: " + sendError.get())
                                : new Transaction(txnId, Outcome.UNKNOWN, sent, "commit failed: " + e));
                return abortAfter(producer, e);
            }
        }
    }

    /** Aborts after an abortable error; false if the error is fatal or the abort fails. */
    private boolean abortAfter(KafkaProducer<byte[], byte[]> producer, RuntimeException error) {
        if (fatal(error)) {
            errors.add("fatal, producer replaced: " + error);
            return false;
        }
        try {
            producer.abortTransaction();
            errors.add("abortable, aborted: " + error);
            return true;
        } catch (KafkaException | IllegalStateException e) {
            errors.add("abortable, but the abort failed, producer replaced: " + error + "; " + e);
            return false;
        }
    }

    /** The errors after which kafka-clients' documentation says the producer can only be closed. */
    private static boolean fatal(RuntimeException error) {
        return error instanceof ApplicationRecoverableException
                || error instanceof OutOfOrderSequenceException
                || error instanceof AuthorizationException
                || error instanceof UnsupportedVersionException
                || error instanceof IllegalStateException;
    }

    private Properties properties() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "transactional-producer-" + id);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "fault-run-txn-" + id);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // A transaction left open by a replaced producer is aborted by the next initTransactions; the
        // timeout bounds how long one can hold the last stable offset back if that fails too.
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) TimeUnit.SECONDS.toMillis(30));
        // Short timeouts, so that the faults reach the application: sends that fail, commits that time
        // out, and the recovery of each.
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return props;
    }
}
