package io.floe.core.object;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The local store's object files kept open between fetches, the least recently used closed beyond
 * a bound: a consumer reading on through an object opens it once, not once per fetch. An evicted or
 * deleted object's file closes once the ranges handed out from it are released. A file opened just
 * before its object was deleted may still be kept until it is evicted: object keys are never
 * reused, so it only holds the disk space a little longer. Thread-safe.
 */
final class OpenFiles {

    /** Opens an object's file; may throw {@link ObjectNotFoundException}. */
    interface Opener {
        OpenObjectFile open() throws IOException;
    }

    private final int maxFiles;
    private final Map<ObjectKey, OpenObjectFile> files;

    OpenFiles(int maxFiles) {
        this.maxFiles = maxFiles;
        this.files = new LinkedHashMap<>(16, 0.75f, true);
    }

    /** The object's open file with one reference for the caller, opening it when it is not open. */
    OpenObjectFile acquire(ObjectKey key, Opener opener) throws IOException {
        synchronized (this) {
            OpenObjectFile open = files.get(key);
            if (open != null && open.tryRetain()) {
                return open;
            }
        }
        OpenObjectFile opened = opener.open();
        opened.tryRetain(); // the caller's reference; the first is the cache's
        List<OpenObjectFile> closing = new ArrayList<>(1);
        synchronized (this) {
            OpenObjectFile replaced = files.put(key, opened);
            if (replaced != null) {
                closing.add(replaced);
            }
            if (files.size() > maxFiles) {
                var eldest = files.entrySet().iterator();
                closing.add(eldest.next().getValue());
                eldest.remove();
            }
        }
        closing.forEach(OpenObjectFile::release);
        return opened;
    }

    /** Forgets the object's file (it was deleted); it closes once its ranges are released. */
    void evict(ObjectKey key) {
        OpenObjectFile removed;
        synchronized (this) {
            removed = files.remove(key);
        }
        if (removed != null) {
            removed.release();
        }
    }

    /** Forgets every file. */
    void clear() {
        List<OpenObjectFile> all;
        synchronized (this) {
            all = new ArrayList<>(files.values());
            files.clear();
        }
        all.forEach(OpenObjectFile::release);
    }
}
