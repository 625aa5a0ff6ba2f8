package io.floe.core.object;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OpenFilesTest {

    @TempDir
    Path dir;

    private final AtomicInteger opens = new AtomicInteger();

    @Test
    void anObjectIsOpenedOnceWhileItStaysAmongTheMostRecentlyUsed() throws IOException {
        OpenFiles files = new OpenFiles(2);
        OpenObjectFile a = files.acquire(key("a"), () -> open("a"));
        a.release();
        files.acquire(key("b"), () -> open("b")).release();
        OpenObjectFile again = files.acquire(key("a"), () -> open("a"));

        assertThat(again).isSameAs(a);
        assertThat(opens).hasValue(2);
        again.release();
    }

    @Test
    void theLeastRecentlyUsedFileClosesOnceItsLastHolderReleasesIt() throws IOException {
        OpenFiles files = new OpenFiles(1);
        OpenObjectFile a = files.acquire(key("a"), () -> open("a"));
        files.acquire(key("b"), () -> open("b")).release(); // evicts a, which a holder still reads

        assertThat(a.channel().isOpen()).isTrue();
        a.release();
        assertThat(a.channel().isOpen()).isFalse();
        files.acquire(key("a"), () -> open("a")).release();
        assertThat(opens).as("a evicted file is opened afresh").hasValue(3);
    }

    @Test
    void anEvictedObjectIsOpenedAfreshAndClearingClosesEveryUnheldFile() throws IOException {
        OpenFiles files = new OpenFiles(4);
        OpenObjectFile a = files.acquire(key("a"), () -> open("a"));
        a.release();
        files.evict(key("a"));
        assertThat(a.channel().isOpen()).isFalse();

        OpenObjectFile b = files.acquire(key("a"), () -> open("a"));
        assertThat(b).isNotSameAs(a);
        files.clear();
        assertThat(b.channel().isOpen()).as("still held").isTrue();
        b.release();
        assertThat(b.channel().isOpen()).isFalse();
    }

    private OpenObjectFile open(String name) throws IOException {
        opens.incrementAndGet();
        Path file = dir.resolve(name);
        if (!Files.exists(file)) {
            Files.write(file, new byte[] {1, 2, 3});
        }
        return new OpenObjectFile(FileChannel.open(file, StandardOpenOption.READ));
    }

    private static ObjectKey key(String name) {
        return new ObjectKey("segments/00/" + name + ".seg");
    }
}
