// Decoding one document at a time (api/decode.h): every message, line and
// decoded object is what parsing the whole text at once gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "api/decode.h"
#include "testing.h"

namespace basalt {
namespace {

// Every object's kind, key and source, in order, and the status: what a
// decode of `text` is compared on.
template <typename T>
void Describe(const char* kind, const std::vector<T>& objects, std::string* out) {
  for (const T& o : objects)
    *out += std::string(kind) + " " + o.meta.Key() + " @" + o.meta.source + "\n";
}

std::string Outcome(const Status& st, const ClusterObjects& o) {
  std::string out = st.ok() ? "ok\n" : "error: " + st.message() + "\n";
  Describe("Node", o.nodes, &out);
  Describe("Pod", o.pods, &out);
  Describe("PriorityClass", o.priority_classes, &out);
  Describe("Queue", o.queues, &out);
  Describe("PodGroup", o.podgroups, &out);
  Describe("Job", o.jobs, &out);
  Describe("Owner", o.owners, &out);
  Describe("Command", o.commands, &out);
  Describe("JobTemplate", o.job_templates, &out);
  Describe("JobFlow", o.job_flows, &out);
  Describe("Numatopology", o.numatopologies, &out);
  Describe("HyperNode", o.hypernodes, &out);
  for (const ObjectMeta& m : o.namespaces) out += "Namespace " + m.Key() + " @" + m.source + "\n";
  return out;
}

std::string Streamed(const std::string& text) {
  ClusterObjects o;
  Status st = DecodeText(text, "f.yaml", &o);
  return Outcome(st, o);
}

std::string InOnePiece(const std::string& text) {
  ClusterObjects o;
  Status st = DecodeTextInOnePieceForTesting(text, "f.yaml", &o);
  return Outcome(st, o);
}

const std::string kNs = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n";
const std::string kNode =
    "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable: {cpu: \"4\"}\n";

// Texts whose documents sit in every way a stream allows: errors in a later
// document, shape errors with the offending line, Lists, block scalars,
// comments and "..." between documents, indented documents, anchors,
// directives, byte-order marks, CRLF line ends.
std::vector<std::string> TrickyTexts() {
  return {
      kNs + "---\n" + kNode + "---\n" + kNs,
      kNs + "---\n" + kNode + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: 3\n",
      kNs + "---\n" + kNode +
          "---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\nstatus:\n"
          "  allocatable: {cpu: x}\n",
      kNs + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\nmetadata: {name: c}\n",
      kNs +
          "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n  labels:\n    x: 1\n"
          "    x: 2\n",
      kNs + "---\napiVersion: v1\nkind: List\nitems:\n- " +
          "apiVersion: v1\n  kind: Namespace\n  metadata: {name: b}\n- apiVersion: v1\n"
          "  kind: Node\n  metadata: {name: n}\n",
      kNs +
          "---\n{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n"
          "  {\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"b\"}},\n"
          "  {\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {}}\n]}\n",
      "# leading comment\n\n" + kNs + "# between\n---\n# inside\n" + kNode + "...\n# after\n",
      kNs + "...\n  apiVersion: v1\n  kind: Namespace\n  metadata: {name: b}\n",
      kNs + "--- |\n  a block scalar\n---\n" + kNode,
      kNs + "--- {apiVersion: v1, kind: Namespace, metadata: {name: b}}\n---\n" + kNode,
      kNs +
          "---\napiVersion: v1\nkind: Namespace\nmetadata: &m {name: b, annotations: {x: |+\n"
          "    kept\n\n}}\n---\napiVersion: v1\nkind: Namespace\nmetadata: *m\n",
      kNs + "---\nx: &a [1, 2]\ny: [*a, *a, *a]\n",
      "%YAML 1.2\n---\n" + kNs + "---\n" + kNode,
      kNs + "---\n%TAG ! tag:example.com,2000:\n---\n" + kNode,
      "\xEF\xBB\xBF" + kNs + "---\n" + kNode,
      "apiVersion: v1\r\nkind: Namespace\r\nmetadata: {name: a}\r\n---\r\n" + kNode,
      kNs + "---\n" + std::string(150, '[') + std::string(150, ']') + "\n",
      kNs + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: \"unterminated\n",
      kNs + "---\n---\n---\n",
      kNs + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n--- # c\n" + kNode,
      kNs + "---\n\xC3\xA9t\xC3\xA9: 1\n---\n" + kNode,
      kNs + "---\n- a\n- b\n",
      kNs + "---\n\t" + kNode,
  };
}

// Each tricky text decodes to the same objects and the same message either way.
TEST(DecodeStreamTest, SameOutcomeAsParsingTheWholeText) {
  for (const std::string& text : TrickyTexts()) {
    EXPECT_EQ(Streamed(text), InOnePiece(text)) << text;
  }
}

// The examples' manifests and the test data: the same outcome either way.
TEST(DecodeStreamTest, SameOutcomeOnTheRepositoryManifests) {
  namespace fs = std::filesystem;
  size_t files = 0;
  for (const char* dir : {"/examples", "/tests/kube_fixtures", "/deploy"}) {
    const fs::path root = std::string(BASALT_SOURCE_DIR) + dir;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".yaml" && ext != ".yml" && ext != ".json")) continue;
      const std::string text = testing::ReadAll(entry.path().string());
      EXPECT_EQ(Streamed(text), InOnePiece(text)) << entry.path();
      ++files;
    }
  }
  EXPECT_GT(files, 10u);
}

// Lines stay the file's in every message of a later document.
TEST(DecodeStreamTest, LaterDocumentsKeepTheirLines) {
  ClusterObjects o;
  Status st = DecodeText(kNs + "---\n" + kNode +
                             "---\napiVersion: v1\nkind: Node\n"
                             "metadata: {name: n2}\nstatus:\n"
                             "  allocatable: {cpu: x}\n",
                         "f.yaml", &o);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("f.yaml:12: Node n2: status.allocatable.cpu: ", 0), 0)
      << st.message();
  ASSERT_EQ(o.nodes.size(), 1u);
  EXPECT_EQ(o.nodes[0].meta.source, "f.yaml:5");

  // A duplicate key: the document's line, then the key's own.
  ClusterObjects dup;
  st = DecodeText(kNs + "---\n" + kNs +
                      "---\napiVersion: v1\nkind: Namespace\nmetadata:\n"
                      "  name: b\n  name: c\n",
                  "f.yaml", &dup);
  EXPECT_EQ(st.message(), "f.yaml:9: Namespace b: metadata.name: duplicate key (line 13)");

  // Malformed YAML in the third document: the parser's line and column.
  ClusterObjects bad;
  st = DecodeText(kNs + "---\n" + kNs + "---\nmetadata: {name: [}\n", "f.yaml", &bad);
  EXPECT_EQ(st.message().rfind("f.yaml:9:", 0), 0) << st.message();
  EXPECT_TRUE(bad.namespaces.empty()) << "a parse error stops before any document is decoded";

  // A List item names its own line.
  ClusterObjects list;
  st = DecodeText(kNs +
                      "---\nkind: List\nitems:\n- kind: Namespace\n  apiVersion: v1\n"
                      "  metadata: {name: b}\n- kind: Namespace\n  apiVersion: v1\n"
                      "  metadata: {}\n",
                  "f.yaml", &list);
  EXPECT_EQ(st.message(), "f.yaml:10: Namespace: metadata.name: missing");
  ASSERT_EQ(list.namespaces.size(), 2u);
  EXPECT_EQ(list.namespaces[1].source, "f.yaml:7");
}

}  // namespace
}  // namespace basalt
