package io.floe.agent.topic;

import io.floe.core.config.InvalidConfigException;
import io.floe.core.config.TopicConfigs;
import io.floe.core.metadata.TopicMetadata;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.TopicExistsException;
import io.floe.core.topic.UnknownTopicException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's view of topics: a cache in front of the metadata store, so the produce and fetch paths
 * resolve names without a database round trip, plus creation (explicit and automatic), deletion and
 * config changes. Methods that miss the cache or change topics call the metadata store and block.
 */
public final class Topics {

    private static final Logger LOGGER = LoggerFactory.getLogger(Topics.class);
    private static final Pattern LEGAL_NAME = Pattern.compile("[a-zA-Z0-9._-]+");
    private static final int MAX_NAME_LENGTH = 249;

    private final TopicMetadata store;
    private final TopicConfigs configs;
    private final boolean autoCreate;
    private final int defaultPartitions;
    private final Map<String, Topic> byName = new ConcurrentHashMap<>();
    private final Map<UUID, Topic> byId = new ConcurrentHashMap<>();
    private final List<Consumer<String>> deletionListeners = new CopyOnWriteArrayList<>();
    private final Object configChanges = new Object();

    public Topics(TopicMetadata store, TopicConfigs configs, boolean autoCreate, int defaultPartitions) {
        this.store = store;
        this.configs = configs;
        this.autoCreate = autoCreate;
        this.defaultPartitions = defaultPartitions;
        store.topics().forEach(this::remember);
    }

    /** Calls {@code listener} with the name of every topic this agent deletes. */
    public void onDeleted(Consumer<String> listener) {
        deletionListeners.add(listener);
    }

    public TopicConfigs configs() {
        return configs;
    }

    public boolean autoCreateEnabled() {
        return autoCreate;
    }

    /** The topic named {@code name}, from the cache or the store. */
    public Optional<Topic> find(String name) {
        Topic cached = byName.get(name);
        if (cached != null) {
            return Optional.of(cached);
        }
        Optional<Topic> stored = store.topic(name);
        stored.ifPresent(this::remember);
        return stored;
    }

    /** The topic with id {@code id}; a miss re-reads the topics from the store (another agent may have created it). */
    public Optional<Topic> find(UUID id) {
        Topic cached = byId.get(id);
        if (cached != null) {
            return Optional.of(cached);
        }
        refresh();
        return Optional.ofNullable(byId.get(id));
    }

    /**
     * Brings the cache in line with the store: topics created, deleted, grown or reconfigured through
     * other agents. Deletions seen here reach the deletion listeners as this agent's own do.
     */
    public void refresh() {
        // Only topics known before the store is read can have been deleted: one this agent creates
        // meanwhile is in the cache but not yet in what the store returned.
        List<Topic> knownBefore = List.copyOf(byName.values());
        List<Topic> stored = store.topics();
        Map<String, Topic> byStoredName = new HashMap<>();
        stored.forEach(topic -> byStoredName.put(topic.name(), topic));
        for (Topic known : knownBefore) {
            Topic now = byStoredName.get(known.name());
            if (now == null || !now.id().equals(known.id())) {
                forget(known);
                deletionListeners.forEach(listener -> listener.accept(known.name()));
                LOGGER.info("Topic deleted through another agent topic={} id={}", known.name(), known.id());
            }
        }
        stored.forEach(this::remember);
    }

    /**
     * The topic named {@code name}; when it does not exist and auto-creation is on, creates it with the
     * default partition count. Empty when it does not exist and may not be created.
     */
    public Optional<Topic> findOrAutoCreate(String name) {
        Optional<Topic> existing = find(name);
        if (existing.isPresent() || !autoCreate || validateName(name).isPresent()) {
            return existing;
        }
        try {
            Topic created = store.createTopic(new NewTopic(name, defaultPartitions, Map.of()));
            LOGGER.info("Auto-created topic topic={} partitions={} id={}", name, defaultPartitions, created.id());
            remember(created);
            return Optional.of(created);
        } catch (TopicExistsException raced) {
            return find(name);
        }
    }

    /** Creates a topic after validating its name and configs; with {@code validateOnly} nothing is stored. */
    public Topic create(NewTopic topic, boolean validateOnly) {
        validateName(topic.name()).ifPresent(problem -> {
            throw new InvalidTopicException(problem);
        });
        // Change checks see a new topic as one that had no overrides: what it creates may meet what a
        // deleted topic of the same name left behind (a table whose schema its declared one must fit).
        // A topic that exists is answered TOPIC_ALREADY_EXISTS below, as by Kafka, not change-checked.
        if (store.topic(topic.name()).isEmpty()) {
            configs.validateChange(
                    new Topic(topic.name(), new UUID(0, 0), topic.partitionCount(), Map.of()), topic.configs());
        } else {
            configs.validate(topic.configs());
        }
        if (validateOnly) {
            if (find(topic.name()).isPresent()) {
                throw new TopicExistsException(topic.name());
            }
            return new Topic(topic.name(), new UUID(0, 0), topic.partitionCount(), topic.configs());
        }
        Topic created = store.createTopic(topic);
        LOGGER.info(
                "Created topic topic={} partitions={} id={} configs={}",
                created.name(),
                created.partitionCount(),
                created.id(),
                created.configs());
        remember(created);
        return created;
    }

    public void delete(String name) {
        Topic known = find(name).orElseThrow(() -> new UnknownTopicException(name));
        store.deleteTopic(name);
        forget(known);
        deletionListeners.forEach(listener -> listener.accept(name));
        LOGGER.info("Deleted topic topic={} id={}", name, known.id());
    }

    public Topic createPartitions(String name, int totalCount) {
        Topic updated = store.createPartitions(name, totalCount);
        remember(updated);
        LOGGER.info("Increased partitions topic={} partitions={}", name, totalCount);
        return updated;
    }

    /**
     * Changes the topic's config overrides: {@code change} computes the new overrides from the topic
     * as the store holds it now; they are validated and, unless {@code validateOnly}, stored and seen
     * by this agent's produce and fetch paths at once. Returns the topic with the new overrides.
     * Changes made through this agent run one at a time, so two incremental changes to one topic
     * never overwrite each other.
     */
    public Topic alterConfigs(String name, Function<Topic, Map<String, String>> change, boolean validateOnly) {
        synchronized (configChanges) {
            Topic current = store.topic(name).orElseThrow(() -> new UnknownTopicException(name));
            Map<String, String> overrides = change.apply(current);
            configs.validateChange(current, overrides);
            if (validateOnly) {
                return new Topic(current.name(), current.id(), current.partitionCount(), overrides);
            }
            return setConfigs(name, overrides);
        }
    }

    /** Replaces the topic's config overrides after validating them. */
    public Topic setConfigs(String name, Map<String, String> overrides) {
        configs.validate(overrides);
        Topic updated = store.setTopicConfigs(name, overrides);
        remember(updated);
        LOGGER.info("Changed topic configs topic={} configs={}", name, overrides);
        return updated;
    }

    /** All topics, by name, as the store has them now. */
    public List<Topic> list() {
        List<Topic> topics = store.topics();
        topics.forEach(this::remember);
        return topics;
    }

    /** Why {@code name} is not a legal topic name, if it is not (Kafka's rules). */
    public static Optional<String> validateName(String name) {
        if (name == null || name.isEmpty()) {
            return Optional.of("Topic name is illegal, it can't be empty");
        }
        if (name.equals(".") || name.equals("..")) {
            return Optional.of("Topic name cannot be \".\" or \"..\"");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            return Optional.of("Topic name is illegal, it can't be longer than " + MAX_NAME_LENGTH
                    + " characters, topic name: " + name);
        }
        if (!LEGAL_NAME.matcher(name).matches()) {
            return Optional.of("Topic name \"" + name
                    + "\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'");
        }
        return Optional.empty();
    }

    private void remember(Topic topic) {
        Topic previous = byName.put(topic.name(), topic);
        if (previous != null && !previous.id().equals(topic.id())) {
            byId.remove(previous.id());
        }
        byId.put(topic.id(), topic);
    }

    private void forget(Topic topic) {
        byName.remove(topic.name(), topic);
        byId.remove(topic.id());
    }

    /** Convenience for callers that validate configs alone (AlterConfigs with validateOnly). */
    public void validateConfigs(Map<String, String> overrides) throws InvalidConfigException {
        configs.validate(overrides);
    }
}
