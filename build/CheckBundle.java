import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks an unpacked Maven Central bundle without trusting the plugins that made it (JDK only, run
 * as {@code java build/CheckBundle.java DIR GROUP_PATH VERSION PUBLISHED}): exactly the published
 * modules are in it; each has its POM, SBOM and (for jar modules) jar, sources and javadoc; every
 * file has an {@code .asc} and checksums that match its bytes; every POM, merged with its parent as
 * Central merges it, has what Central requires; every SBOM lists its components with versions and
 * licences. Prints the files whose signatures the caller must verify, one per line, and exits 1 with
 * every problem found on standard error otherwise.
 *
 * <p>One file on purpose: Java 17's source launcher runs a single file, and the check must not need
 * a build (or a JSON library) it would then have to trust; inside, the checks are one method per
 * kind of file and the JSON reader is its own nested class.
 */
final class CheckBundle {

  private static final Map<String, String> DIGESTS =
      Map.of("md5", "MD5", "sha1", "SHA-1", "sha256", "SHA-256", "sha512", "SHA-512");

  private final List<String> problems = new ArrayList<>();
  private final List<Path> signed = new ArrayList<>();

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: CheckBundle DIR GROUP_PATH VERSION published,artifact,ids");
      System.exit(2);
    }
    CheckBundle check = new CheckBundle();
    check.run(
        Path.of(args[0]),
        args[1],
        args[2],
        new TreeSet<>(List.of(args[3].split(","))));
    if (!check.problems.isEmpty()) {
      check.problems.forEach(p -> System.err.println("bundle: " + p));
      System.exit(1);
    }
    check.signed.forEach(System.out::println);
  }

  private void run(Path root, String groupPath, String version, Set<String> published)
      throws Exception {
    Path group = root.resolve(groupPath);
    Set<String> present = new TreeSet<>();
    try (Stream<Path> all = Files.walk(root)) {
      for (Path file : all.filter(Files::isRegularFile).toList()) {
        Path relative = root.relativize(file);
        if (!file.startsWith(group) || relative.getNameCount() != groupPath.split("/").length + 3) {
          problems.add("unexpected file " + relative);
          continue;
        }
        present.add(group.relativize(file).getName(0).toString());
      }
    }
    for (String artifactId : present) {
      if (!published.contains(artifactId)) {
        problems.add(artifactId + " is in the bundle but not in servicehooks.published");
      }
    }
    Map<String, Document> poms = new LinkedHashMap<>();
    for (String artifactId : published) {
      Path dir = group.resolve(artifactId).resolve(version);
      Path pom = dir.resolve(artifactId + "-" + version + ".pom");
      if (!Files.isRegularFile(pom)) {
        problems.add(artifactId + ": no " + pom.getFileName());
        continue;
      }
      Document document = parse(pom);
      poms.put(artifactId, document);
      String packaging = text(document.getDocumentElement(), "packaging");
      List<String> expected = new ArrayList<>();
      expected.add(".pom");
      expected.add("-cyclonedx.json");
      if (packaging == null || packaging.equals("jar")) {
        expected.addAll(List.of(".jar", "-sources.jar", "-javadoc.jar"));
      }
      Set<String> files;
      try (Stream<Path> list = Files.list(dir)) {
        files = list.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
      }
      String prefix = artifactId + "-" + version;
      for (String suffix : expected) {
        String name = prefix + suffix;
        if (!files.contains(name)) {
          problems.add(artifactId + ": no " + name);
          continue;
        }
        checkFile(dir.resolve(name), files);
      }
      for (String name : files) {
        String base = name;
        while (base.matches(".*\\.(asc|md5|sha1|sha256|sha512)")) {
          base = base.substring(0, base.lastIndexOf('.'));
        }
        if (!base.startsWith(prefix) || !expected.contains(base.substring(prefix.length()))) {
          problems.add(artifactId + ": unexpected file " + name);
        }
      }
      Path jar = dir.resolve(prefix + ".jar");
      if (Files.isRegularFile(jar)) {
        checkJar(artifactId, jar, "META-INF/MANIFEST.MF,META-INF/LICENSE");
        checkJar(artifactId, dir.resolve(prefix + "-sources.jar"), "META-INF/MANIFEST.MF");
        checkJar(artifactId, dir.resolve(prefix + "-javadoc.jar"), "index.html");
      }
      Path sbom = dir.resolve(prefix + "-cyclonedx.json");
      if (Files.isRegularFile(sbom)) {
        checkSbom(artifactId, sbom);
      }
    }
    poms.forEach((artifactId, pom) -> checkPom(artifactId, pom, poms));
  }

  /** The file's signature and checksums: every digest present must match, md5 and sha1 must be. */
  private void checkFile(Path file, Set<String> siblings) throws IOException {
    String name = file.getFileName().toString();
    byte[] bytes = Files.readAllBytes(file);
    if (!siblings.contains(name + ".asc")) {
      problems.add("no signature " + name + ".asc");
    } else {
      signed.add(file);
    }
    for (Map.Entry<String, String> digest : DIGESTS.entrySet()) {
      for (String target : List.of(name, name + ".asc")) {
        String checksum = target + "." + digest.getKey();
        if (!siblings.contains(checksum)) {
          // Central requires md5 and sha1 of every file but the signatures.
          if (target.equals(name) && (digest.getKey().equals("md5") || digest.getKey().equals("sha1"))) {
            problems.add("no checksum " + checksum);
          }
          continue;
        }
        byte[] content =
            target.equals(name) ? bytes : Files.readAllBytes(file.resolveSibling(target));
        String want = hex(digest.getValue(), content);
        String got =
            Files.readString(file.resolveSibling(checksum), StandardCharsets.US_ASCII)
                .trim()
                .split("\\s+")[0];
        if (!want.equalsIgnoreCase(got)) {
          problems.add(checksum + " is " + got + ", the file's " + digest.getKey() + " is " + want);
        }
      }
    }
  }

  private void checkJar(String artifactId, Path jar, String mustHold) throws IOException {
    if (!Files.isRegularFile(jar)) {
      return;
    }
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      // A starter has no code by design (it only declares dependencies, as Spring Boot's own do):
      // its jars must be there for Central, but hold only what every jar holds.
      boolean codeless = artifactId.endsWith("-spring-boot-starter");
      if (!codeless
          && zip.stream().noneMatch(e -> e.getName().matches(".*\\.(class|java|html)"))) {
        problems.add(artifactId + ": " + jar.getFileName() + " holds no classes, sources or pages");
      }
      for (String entry : mustHold.split(",")) {
        if (zip.getEntry(entry) == null) {
          problems.add(artifactId + ": " + jar.getFileName() + " has no " + entry);
        }
      }
    }
  }

  /**
   * What Central requires of a POM, after inheritance: name and description of the module's own
   * (an inherited description would describe the parent), the rest from it or its parent.
   */
  private void checkPom(String artifactId, Document pom, Map<String, Document> poms) {
    Element own = pom.getDocumentElement();
    Element parentRef = child(own, "parent");
    Element parent =
        parentRef == null || poms.get(text(parentRef, "artifactId")) == null
            ? null
            : poms.get(text(parentRef, "artifactId")).getDocumentElement();
    if (parentRef != null && parent == null) {
      problems.add(artifactId + ": its parent " + text(parentRef, "artifactId") + " is not in the bundle");
    }
    for (String field : List.of("name", "description")) {
      if (blank(text(own, field))) {
        problems.add(artifactId + ": no <" + field + "> of its own");
      }
    }
    String description = text(own, "description");
    if (!blank(description) && description.split("[.!?]\\s+(?=[A-Z])").length > 1) {
      problems.add(artifactId + ": <description> is more than one sentence");
    }
    for (String path :
        List.of(
            "url",
            "licenses/license/name",
            "licenses/license/url",
            "developers/developer/name",
            "scm/connection",
            "scm/developerConnection",
            "scm/url",
            "issueManagement/url")) {
      if (blank(path(own, path)) && (parent == null || blank(path(parent, path)))) {
        problems.add(artifactId + ": no " + path + " (own or inherited)");
      }
    }
  }

  /** Every component of the SBOM names its version and at least one licence. */
  private void checkSbom(String artifactId, Path sbom) throws IOException {
    Object json = new Json(Files.readString(sbom, StandardCharsets.UTF_8)).value();
    if (!(json instanceof Map<?, ?> bom) || !"CycloneDX".equals(bom.get("bomFormat"))) {
      problems.add(artifactId + ": " + sbom.getFileName() + " is not a CycloneDX document");
      return;
    }
    Object components = bom.get("components");
    for (Object component : components instanceof List<?> list ? list : List.of()) {
      Map<?, ?> c = (Map<?, ?>) component;
      String id = c.get("group") + ":" + c.get("name");
      if (blank((String) c.get("version"))) {
        problems.add(artifactId + ": SBOM component " + id + " has no version");
      }
      if (!(c.get("licenses") instanceof List<?> licences) || licences.isEmpty()) {
        problems.add(artifactId + ": SBOM component " + id + " has no licence");
      }
    }
  }

  private static Document parse(Path file) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    try (InputStream in = Files.newInputStream(file)) {
      return factory.newDocumentBuilder().parse(in);
    }
  }

  private static Element child(Element element, String name) {
    for (Node n = element.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }

  private static String text(Element element, String name) {
    Element child = child(element, name);
    return child == null ? null : child.getTextContent().trim();
  }

  private static String path(Element element, String path) {
    Element current = element;
    for (String step : path.split("/")) {
      current = current == null ? null : child(current, step);
    }
    return current == null ? null : current.getTextContent().trim();
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }

  private static String hex(String algorithm, byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Just enough JSON for an SBOM: objects, arrays, strings, numbers, true, false, null. */
  private static final class Json {
    private final String s;
    private int i;

    Json(String s) {
      this.s = s;
    }

    Object value() {
      skip();
      char c = s.charAt(i);
      if (c == '{') {
        Map<String, Object> map = new LinkedHashMap<>();
        i++;
        skip();
        if (s.charAt(i) == '}') {
          i++;
          return map;
        }
        while (true) {
          skip();
          String key = string();
          skip();
          expect(':');
          map.put(key, value());
          skip();
          if (s.charAt(i++) == '}') {
            return map;
          }
        }
      }
      if (c == '[') {
        List<Object> list = new ArrayList<>();
        i++;
        skip();
        if (s.charAt(i) == ']') {
          i++;
          return list;
        }
        while (true) {
          list.add(value());
          skip();
          if (s.charAt(i++) == ']') {
            return list;
          }
        }
      }
      if (c == '"') {
        return string();
      }
      int start = i;
      while (i < s.length() && ",]} \n\r\t".indexOf(s.charAt(i)) < 0) {
        i++;
      }
      String word = s.substring(start, i);
      return switch (word) {
        case "true" -> Boolean.TRUE;
        case "false" -> Boolean.FALSE;
        case "null" -> null;
        default -> Double.valueOf(word);
      };
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        char c = s.charAt(i++);
        if (c == '"') {
          return out.toString();
        }
        if (c == '\\') {
          char e = s.charAt(i++);
          switch (e) {
            case 'n' -> out.append('\n');
            case 't' -> out.append('\t');
            case 'r' -> out.append('\r');
            case 'b' -> out.append('\b');
            case 'f' -> out.append('\f');
            case 'u' -> {
              out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
              i += 4;
            }
            default -> out.append(e);
          }
        } else {
          out.append(c);
        }
      }
    }

    private void expect(char c) {
      if (s.charAt(i++) != c) {
        throw new IllegalArgumentException("expected '" + c + "' at " + (i - 1));
      }
    }

    private void skip() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
    }
  }
}
