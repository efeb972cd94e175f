package io.servicehooks.samples.springbot;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.testsupport.JarProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The class-data sharing archive the build writes for the extracted jar is one this JDK maps: with
 * {@code -Xshare:on} the JVM refuses to start unless it can use it, so a stale archive, one for
 * another path or a training run that wrote nothing fails here rather than in production as a
 * warning. The run refreshes the context and exits ({@code -Dspring.context.exit=onRefresh}), as
 * the training run did, from another working directory than the build's.
 */
final class ClassDataSharingIT {

  private static final Path EXTRACTED_JAR = Path.of("target/extracted/servicehooks-spring-bot.jar");
  private static final Path ARCHIVE = Path.of("target/servicehooks-spring-bot.jsa");

  @RegisterExtension final JarProcesses jars = new JarProcesses(EXTRACTED_JAR.toAbsolutePath());

  @Test
  void buildsArchive_isMappedByThisJdk_forTheExtractedJar(@TempDir Path dir) throws Exception {
    assertThat(EXTRACTED_JAR).exists();
    assertThat(ARCHIVE).exists();
    Path out = dir.resolve("out.txt");
    Process p =
        jars.launch()
            .jvm(
                "-Xshare:on",
                "-XX:SharedArchiveFile=" + ARCHIVE.toAbsolutePath(),
                "-Xlog:class+load=info:file=" + dir.resolve("classes.txt"),
                "-Dspring.context.exit=onRefresh")
            .env("SERVICE_CONSUMER_SECRET", "class-data-sharing-it")
            .env("PORT", "0")
            .without(
                "SERVICE_WEBHOOK_URL",
                "SERVICE_API_BASE_URL",
                "SERVICE_BEARER_TOKEN",
                "SERVICE_API_KEY",
                "SERVICE_API_SECRET")
            .output(out)
            .start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    String printed = Files.readString(out);
    assertThat(p.exitValue()).as(printed).isZero();
    assertThat(printed).doesNotContain("[cds]").doesNotContain("shared archive");
    // The application's own classes and Spring's come from the archive, not from the jars.
    String loaded = Files.readString(dir.resolve("classes.txt"));
    assertThat(loaded)
        .contains(
            "io.servicehooks.samples.springbot.SpringBotApplication source: shared objects file")
        .contains(
            "org.springframework.context.support.AbstractApplicationContext source: shared objects"
                + " file");
  }
}
