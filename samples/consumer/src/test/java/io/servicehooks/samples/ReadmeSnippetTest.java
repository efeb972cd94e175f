package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Java examples of the README and the docs/ pages are code that compiles here ({@link
 * QuickStart}, {@link PlainJavaBot}, {@link SeveralInstances}, the store in "Write your own store"
 * {@link MapDeduplicator} and the contract test it starts with, "Catching up after downtime" {@link
 * CatchUpBot}), every snippet has its imports and they name real types, and "Use it in your
 * project" gives the coordinates on Maven Central of the version the root pom builds, and the
 * snapshot to install until it is released. Every published module has a short README whose Java
 * snippet is code of the samples.
 */
final class ReadmeSnippetTest {

  private static final Path ROOT = Path.of("../..");
  private static final Path SAMPLES = Path.of("src/main/java/io/servicehooks/samples");
  private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern IMPORT =
      Pattern.compile("^import (io\\.servicehooks\\.[a-z.]+)\\.([A-Z]\\w*);$", Pattern.MULTILINE);

  private static String normalized(String text) {
    return text.lines()
        .filter(l -> !l.isBlank())
        .map(String::strip)
        .collect(Collectors.joining("\n"));
  }

  private static String readme() throws Exception {
    return Files.readString(ROOT.resolve("README.md"));
  }

  /** The README, then every docs/ page: where the examples live. */
  private static String allDocs() throws Exception {
    StringBuilder all = new StringBuilder(readme());
    try (var pages = Files.list(ROOT.resolve("docs"))) {
      for (Path page : pages.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
        all.append("\n").append(Files.readString(page));
      }
    }
    return all.toString();
  }

  private static List<String> javaBlocks(String readme) {
    List<String> blocks = new ArrayList<>();
    Matcher m = JAVA_BLOCK.matcher(readme);
    while (m.find()) {
      blocks.add(m.group(1));
    }
    return blocks;
  }

  @Test
  void readmeExample_isQuickStartCode_withQuickStartsImports() throws Exception {
    String source = Files.readString(SAMPLES.resolve("QuickStart.java"));
    String expected =
        normalized(
            source.substring(
                source.indexOf("// README-BEGIN") + "// README-BEGIN".length(),
                source.indexOf("// README-END")));
    String first = javaBlocks(readme()).get(0);
    assertThat(normalized(first)).contains(expected);
    source
        .lines()
        .filter(l -> l.startsWith("import "))
        .forEach(i -> assertThat(first).as("first snippet imports").contains(i));
  }

  @Test
  void runningSeveralInstances_example_isSeveralInstancesCode_withItsImports() throws Exception {
    String source = Files.readString(SAMPLES.resolve("SeveralInstances.java"));
    String expected =
        normalized(
            source.substring(
                source.indexOf("// README-BEGIN") + "// README-BEGIN".length(),
                source.indexOf("// README-END")));
    String page = Files.readString(ROOT.resolve("docs/several-instances.md"));
    String section = page.substring(page.indexOf("## Running several instances"));
    String block =
        javaBlocks(section).stream()
            .filter(b -> normalized(b).contains(expected))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no snippet in the section is SeveralInstances"));
    source
        .lines()
        .filter(l -> l.startsWith("import "))
        .forEach(i -> assertThat(block).as("snippet imports").contains(i));
    assertThat(section)
        .contains("REDIS_URL")
        .contains("REDIS_PREFIX")
        .contains("servicehooks.webhook.dedup.redis.url")
        .contains("(#the-redis-store-in-depth)")
        .contains("dedup_unavailable")
        .contains("in_flight");
  }

  @Test
  void useItInYourProject_completeExample_isPlainJavaBotFromItsFirstImport() throws Exception {
    String source = Files.readString(SAMPLES.resolve("PlainJavaBot.java"));
    String fromImports = source.substring(source.indexOf("import "));
    int javadoc = fromImports.indexOf("/**");
    String code =
        fromImports.substring(0, javadoc)
            + fromImports.substring(fromImports.indexOf("*/", javadoc) + 2);
    assertThat(javaBlocks(readme()).stream().map(ReadmeSnippetTest::normalized))
        .contains(normalized(code));
  }

  @Test
  void everyJavaSnippet_hasImports_namingTypesThatExist() throws Exception {
    List<String> blocks = javaBlocks(allDocs());
    assertThat(blocks).hasSizeGreaterThanOrEqualTo(6);
    for (String block : blocks) {
      assertThat(block).as(block).containsPattern("(?m)^import ");
      Matcher m = IMPORT.matcher(block);
      while (m.find()) {
        String pkg = m.group(1).replace('.', '/');
        String type = m.group(2) + ".java";
        boolean exists;
        try (var modules = Files.list(ROOT)) {
          exists =
              modules.anyMatch(
                  module ->
                      Files.exists(module.resolve("src/main/java").resolve(pkg).resolve(type)));
        }
        assertThat(exists).as(m.group()).isTrue();
      }
    }
  }

  @Test
  void useItInYourProject_namesCentralCoordinatesAndTheInstallCommand() throws Exception {
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    Matcher v =
        Pattern.compile(
                "<artifactId>servicehooks-parent</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(pom);
    assertThat(v.find()).isTrue();
    String version = v.group(1);
    String readme = readme();
    String section = readme.substring(readme.indexOf("## Use it in your project"));
    section = section.substring(0, section.indexOf("\n## ", 3));
    // The coordinates as they will be on Maven Central (the release of the version being built),
    // and, until that release, the snapshot that `./mvnw install` puts into ~/.m2.
    String release = version.replaceFirst("-SNAPSHOT$", "");
    if (!release.equals(version)) {
      assertThat(section).contains("`" + version + "`");
    }
    assertThat(section)
        .contains("./mvnw -B -DskipTests install")
        .contains("`io.servicehooks:<artifactId>:" + release + "`")
        .containsPattern(
            "<artifactId>servicehooks-bom</artifactId>\\s*<version>"
                + java.util.regex.Pattern.quote(release)
                + "</version>")
        .contains("<scope>import</scope>")
        .contains("slf4j-api")
        .contains("0.0.0.0")
        .contains("MIN_SECRET_LENGTH");
    for (String artifact :
        List.of(
            "webhook-core",
            "webhook-undertow",
            "webhook-spring-adapter",
            "webhook-registration",
            "webhook-redis",
            "webhook-testkit",
            "servicehooks-bom")) {
      assertThat(section).contains("`" + artifact + "`");
    }
    assertThat(readme.indexOf("## Use it in your project"))
        .as("after the first screen (demo and test commands)")
        .isGreaterThan(readme.indexOf("./mvnw -B verify"));
  }

  @Test
  void readmeStoreExample_isMapDeduplicatorCode() throws Exception {
    String source = Files.readString(SAMPLES.resolve("MapDeduplicator.java"));
    String expected =
        normalized(
            source.substring(
                source.indexOf("// README-STORE-BEGIN") + "// README-STORE-BEGIN".length(),
                source.indexOf("// README-STORE-END")));
    assertThat(normalized(allDocs())).contains(expected);
  }

  @Test
  void writeYourOwnStore_startsWithTheContract_isMapDeduplicatorContractTestCode()
      throws Exception {
    String source =
        Files.readString(
            Path.of("src/test/java/io/servicehooks/samples/MapDeduplicatorContractTest.java"));
    String expected =
        normalized(
            source.substring(
                source.indexOf("// README-CONTRACT-BEGIN") + "// README-CONTRACT-BEGIN".length(),
                source.indexOf("// README-CONTRACT-END")));
    String page = Files.readString(ROOT.resolve("docs/several-instances.md"));
    String section = page.substring(page.indexOf("### Write your own store"));
    String firstParagraph =
        section.substring(0, section.indexOf("\n\n", section.indexOf("\n") + 2));
    assertThat(firstParagraph)
        .contains("servicehooks-store-contracts")
        .contains("DeduplicatorContract")
        .contains("EventInboxContract");
    assertThat(normalized(javaBlocks(section).get(0))).isEqualTo(expected);
    assertThat(section)
        .contains("<artifactId>servicehooks-store-contracts</artifactId>\n  <scope>test</scope>");
  }

  @Test
  void readmeCatchUpExample_isCatchUpBotCode_withCatchUpBotsImports() throws Exception {
    String source = Files.readString(SAMPLES.resolve("CatchUpBot.java"));
    String expected =
        normalized(
            source.substring(
                source.indexOf("// README-CATCHUP-BEGIN") + "// README-CATCHUP-BEGIN".length(),
                source.indexOf("// README-CATCHUP-END")));
    List<String> matching =
        javaBlocks(allDocs()).stream().filter(b -> normalized(b).contains(expected)).toList();
    assertThat(matching).as("README and docs/ blocks holding CatchUpBot's code").hasSize(1);
    assertThat(matching.get(0).lines().filter(l -> l.startsWith("import ")))
        .as("the catch-up snippet imports")
        .containsExactlyInAnyOrderElementsOf(
            source.lines().filter(l -> l.startsWith("import ")).toList());
  }

  /** The published modules, from the root pom's {@code servicehooks.published} list. */
  private static List<String> publishedModules() throws Exception {
    Matcher m =
        Pattern.compile("<servicehooks.published>([^<]+)</servicehooks.published>")
            .matcher(Files.readString(ROOT.resolve("pom.xml")));
    assertThat(m.find()).isTrue();
    return List.of(m.group(1).split(",")).stream()
        .filter(artifact -> !artifact.equals("servicehooks-parent"))
        .toList();
  }

  private static List<Path> sampleSources() throws Exception {
    try (var files = Files.walk(ROOT.resolve("samples"))) {
      return files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(
              p ->
                  p.toString().contains("/src/main/java/")
                      || p.toString().contains("/src/test/java/"))
          .toList();
    }
  }

  /** Whether every line of {@code snippet} appears in {@code source}, in order (stripped). */
  private static boolean inOrder(String snippet, String source) {
    List<String> lines = source.lines().map(String::strip).toList();
    int at = 0;
    for (String line : snippet.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
      while (at < lines.size() && !lines.get(at).equals(line)) {
        at++;
      }
      if (at == lines.size()) {
        return false;
      }
      at++;
    }
    return true;
  }

  @Test
  void everyPublishedModule_hasAShortReadme_withOneSnippetAndALinkToTheDocs() throws Exception {
    for (String module : publishedModules()) {
      Path readme = ROOT.resolve(module).resolve("README.md");
      assertThat(readme).as(module + " has a README").exists();
      String text = Files.readString(readme);
      assertThat(text.lines().count()).as(module + "'s README: about a dozen lines").isLessThan(40);
      assertThat(text).as(module + "'s README").startsWith("# " + module + "\n");
      assertThat(text).as(module + "'s README: one snippet").containsPattern("(?m)^```[a-z]+$");
      assertThat(text).as(module + "'s README links the docs").contains("](../docs/");
    }
  }

  @Test
  void moduleReadmeJavaSnippets_areCodeOfTheSamples_inOrder_withThatFilesImports()
      throws Exception {
    List<Path> sources = sampleSources();
    for (String module : publishedModules()) {
      Path readme = ROOT.resolve(module).resolve("README.md");
      for (String block : javaBlocks(Files.readString(readme))) {
        List<String> imports = block.lines().filter(l -> l.startsWith("import ")).toList();
        String code =
            String.join("\n", block.lines().filter(l -> !l.startsWith("import ")).toList());
        boolean found = false;
        for (Path source : sources) {
          String text = Files.readString(source);
          if (inOrder(code, text) && imports.stream().allMatch(text::contains)) {
            found = true;
            break;
          }
        }
        assertThat(found)
            .as(
                module
                    + "'s README snippet is code of one samples file, with its imports:\n"
                    + block)
            .isTrue();
      }
    }
  }
}
