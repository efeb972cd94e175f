package io.servicehooks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * This module's tests run on the Jackson 2 and Kafka versions Spring Boot manages, which an
 * application under {@code spring-boot-starter-parent} gets: the versions on the class path are
 * compared with the properties of Spring Boot's own BOM ({@code spring-boot-dependencies}), read
 * from the local repository, so a new Boot release or a changed pom that moves them apart fails.
 */
final class BootManagedVersionsTest {

  @Test
  void jackson2_onTheTestClassPath_isTheVersionSpringBootManages() throws Exception {
    String managed = bomProperty("jackson-2-bom.version");
    assertThat(com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.toString())
        .isEqualTo(managed)
        .isEqualTo(build().getProperty("jackson.version"));
    assertThat(com.fasterxml.jackson.core.json.PackageVersion.VERSION.toString())
        .isEqualTo(managed);
  }

  /**
   * One Kafka in the reactor: the root pom's kafka.version (webhook-kafka's clients and test
   * broker) is Boot's, and it is the kafka-clients these tests run.
   */
  @Test
  void kafkaClients_onTheTestClassPath_isTheVersionSpringBootManages() throws Exception {
    assertThat(org.apache.kafka.common.utils.AppInfoParser.getVersion())
        .isEqualTo(bomProperty("kafka.version"))
        .isEqualTo(build().getProperty("kafka.version"));
  }

  /** A property of Spring Boot's BOM, at the version this build imports. */
  private static String bomProperty(String name) throws Exception {
    Path bom = Path.of(build().getProperty("bom"));
    assertThat(bom).as("Spring Boot's BOM in the local repository").isRegularFile();
    Document document;
    try (InputStream in = Files.newInputStream(bom)) {
      document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
    }
    for (Node node = document.getDocumentElement().getFirstChild();
        node != null;
        node = node.getNextSibling()) {
      if (node instanceof Element element && element.getTagName().equals("properties")) {
        var values = element.getElementsByTagName(name);
        assertThat(values.getLength()).as("%s in %s", name, bom).isEqualTo(1);
        return values.item(0).getTextContent().strip();
      }
    }
    throw new AssertionError("no <properties> in " + bom);
  }

  /** What Maven filtered into the test resources: where the BOM is, and the versions used. */
  private static Properties build() throws IOException {
    Properties properties = new Properties();
    try (InputStream in =
        BootManagedVersionsTest.class.getResourceAsStream("boot-bom.properties")) {
      assertThat(in).as("filtered boot-bom.properties").isNotNull();
      properties.load(in);
    }
    return properties;
  }
}
