package io.servicehooks.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testsupport.DocTables;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Spring Boot table of docs/configuration.md names exactly the properties of the
 * configuration-properties metadata the build generates (including the additional metadata).
 */
final class SpringPropertiesDocTest {

  static final String HEADING = "## Spring Boot properties";

  @Test
  void configurationReference_springTable_namesEveryPropertyOfTheMetadata() throws Exception {
    JsonNode metadata =
        new ObjectMapper()
            .readTree(
                Path.of("target/classes/META-INF/spring-configuration-metadata.json").toFile());
    Set<String> inCode = new TreeSet<>();
    metadata.path("properties").forEach(p -> inCode.add(p.path("name").asText()));

    DocTables.assertSame(
        "property",
        inCode,
        "webhook-spring-adapter's configuration metadata (the @ConfigurationProperties classes and"
            + " additional-spring-configuration-metadata.json)",
        DocTables.firstColumn(
            "docs/configuration.md",
            HEADING,
            Pattern.compile("[a-z][a-z0-9\\-]*(\\.[a-z0-9\\-]+)+")),
        "docs/configuration.md, the table under '" + HEADING + "'",
        "| `NAME` | <default> | <its description> |");
  }
}
