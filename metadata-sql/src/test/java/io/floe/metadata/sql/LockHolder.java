package io.floe.metadata.sql;

import java.io.IOException;
import java.nio.file.Path;

/** Run in a child JVM by the lock test: opens a store, says so, and holds it until its stdin closes. */
public final class LockHolder {

    private LockHolder() {}

    public static void main(String[] args) throws IOException {
        try (SqlMetadataStore store = SqlMetadataStore.openSqlite(Path.of(args[0]))) {
            System.out.println("opened " + store.describe());
            System.out.flush();
            while (System.in.read() >= 0) {
                // Wait for the parent to close our stdin.
            }
        }
    }
}
