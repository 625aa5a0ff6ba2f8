package io.floe.cli.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpHandler;
import org.junit.jupiter.api.Test;

class RouteTableTest {

    private static final HttpHandler NOTHING = exchange -> {};

    @Test
    void theLongestMountedPrefixWins() {
        HttpHandler catalog = exchange -> {};
        RouteTable routes = new RouteTable().mount("/iceberg", NOTHING).mount("/iceberg/v1", catalog);

        assertThat(routes.mounted("/iceberg/v1/namespaces")).containsSame(catalog);
        assertThat(routes.mounted("/iceberg/v2")).containsSame(NOTHING);
        assertThat(routes.mounted("/iceberg")).containsSame(NOTHING);
        assertThat(routes.mounted("/icebergs")).isEmpty();
    }

    @Test
    void rejectsTakenAndMalformedRoutes() {
        RouteTable routes =
                new RouteTable().get("/health", () -> TextResponse.ok("ok")).mount("/iceberg", NOTHING);

        assertThatThrownBy(() -> routes.get("/health", () -> TextResponse.ok("again")))
                .hasMessage("route GET /health is already taken");
        assertThatThrownBy(() -> routes.mount("/iceberg", NOTHING)).hasMessage("mount /iceberg is already taken");
        assertThatThrownBy(() -> routes.get("metrics", () -> TextResponse.ok("")))
                .hasMessage("route path 'metrics' must start with '/'");
        assertThatThrownBy(() -> routes.mount("/x/", NOTHING)).hasMessage("mount prefix /x/ must not end with '/'");
    }
}
