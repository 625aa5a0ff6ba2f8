package io.floe.metadata.sql;

import java.sql.Connection;
import java.sql.SQLException;

/** A unit of work run inside one transaction on the connection it is given. */
@FunctionalInterface
interface SqlWork<T> {

    T run(Connection connection) throws SQLException;
}
