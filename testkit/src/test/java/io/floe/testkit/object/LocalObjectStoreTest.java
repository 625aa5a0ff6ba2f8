package io.floe.testkit.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectAlreadyExistsException;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalObjectStoreTest extends ObjectStoreContract {

    @TempDir
    Path root;

    @Override
    protected ObjectStore createStore() {
        return new LocalObjectStore(root);
    }

    @Test
    void createsAMissingRoot() throws IOException {
        Path nested = root.resolve("a/b/objects");

        try (LocalObjectStore store = new LocalObjectStore(nested)) {
            assertThat(nested).isDirectory();
            assertThat(store.describe()).isEqualTo("file:" + nested.toRealPath());
        }
    }

    @Test
    void storesObjectsAsPlainFilesAndLeavesNoTemporaryFiles() throws IOException {
        ObjectKey key = new ObjectKey("segments/ab/0001.seg");
        byte[] content = content(1, 5_000);
        store().put(key, ByteBuffer.wrap(content));
        assertThatThrownBy(() -> store().put(key, ByteBuffer.wrap(content(2, 10))))
                .isInstanceOf(ObjectAlreadyExistsException.class);

        assertThat(root.resolve("segments/ab/0001.seg")).hasBinaryContent(content);
        try (Stream<Path> temp = Files.list(root.resolve(".tmp"))) {
            assertThat(temp).isEmpty();
        }
    }

    @Test
    void readsWhatAnotherInstanceWrote() {
        ObjectKey key = new ObjectKey("segments/cd/0002.seg");
        store().put(key, ByteBuffer.wrap(content(3, 100)));

        try (LocalObjectStore reopened = new LocalObjectStore(root)) {
            assertContent(reopened.get(key), content(3, 100));
            assertThat(reopened.list("")).hasSize(1);
        }
    }

    @Test
    void listsNeitherTemporaryNorForeignEntries() throws IOException {
        store().put(new ObjectKey("kept"), ByteBuffer.wrap(content(4, 10)));
        Files.write(root.resolve(".tmp/leftover.put"), new byte[] {1, 2, 3});
        Files.write(root.resolve("not..a.key"), new byte[] {1});
        Files.createSymbolicLink(root.resolve("link"), root.resolve("kept"));

        assertThat(store().list("")).extracting(info -> info.key().value()).containsExactly("kept");
    }

    @Test
    void rejectsKeysThatCannotBeFiles() {
        for (String key : new String[] {".tmp/x", "a//b", "a/./b", "a/", "."}) {
            assertThatThrownBy(() -> store().put(new ObjectKey(key), ByteBuffer.wrap(content(5, 1))))
                    .as("key '%s'", key)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void keepsKeysAndDirectoriesApart() {
        store().put(new ObjectKey("a/b"), ByteBuffer.wrap(content(6, 10)));
        store().put(new ObjectKey("c"), ByteBuffer.wrap(content(7, 10)));

        assertThatThrownBy(() -> store().get(new ObjectKey("a"))).isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> store().put(new ObjectKey("a"), ByteBuffer.wrap(content(8, 10))))
                .isExactlyInstanceOf(ObjectStoreException.class)
                .satisfies(
                        e -> assertThat(((ObjectStoreException) e).retriable()).isFalse());
        assertThatThrownBy(() -> store().put(new ObjectKey("c/d"), ByteBuffer.wrap(content(9, 10))))
                .isExactlyInstanceOf(ObjectStoreException.class)
                .satisfies(
                        e -> assertThat(((ObjectStoreException) e).retriable()).isFalse());
        store().delete(new ObjectKey("a"));
        assertContent(store().get(new ObjectKey("a/b")), content(6, 10));
    }
}
