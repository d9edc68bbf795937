#include "live/vc_store.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/decode.h"
#include "api/file_text.h"
#include "api/yaml_json.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"

namespace basalt {
namespace {

namespace fs = std::filesystem;

std::string Str(const Json& obj, const char* field) {
  auto it = obj.find(field);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}
std::string MetaStr(const Json& obj, const char* field) {
  auto meta = obj.find("metadata");
  return meta != obj.end() && meta->is_object() ? Str(*meta, field) : std::string();
}

bool SameKind(const Json& obj, VcKind kind) {
  const VcKindInfo& info = KindInfo(kind);
  return obj.is_object() && Str(obj, "kind") == info.kind &&
         Str(obj, "apiVersion") == info.api_version;
}

void SortByKey(std::vector<Json>* objs) {
  std::stable_sort(objs->begin(), objs->end(), [](const Json& a, const Json& b) {
    return std::make_pair(MetaStr(a, "namespace"), MetaStr(a, "name")) <
           std::make_pair(MetaStr(b, "namespace"), MetaStr(b, "name"));
  });
}

Result<std::string> ReadText(const std::string& path) {
  std::optional<std::string> text = ReadFileText(path);
  if (!text) return Status::NotFound(path + ": cannot read file");
  return std::move(*text);
}

// ---- the folder back end ----

// One YAML document of a manifest file: its byte range (the "---" line that
// opens it included) so that delete can cut exactly it out.
struct FolderDoc {
  std::string file;
  size_t begin = 0, end = 0;
  Json object;
};

bool IsSeparator(const std::string& text, size_t line_start, size_t line_end, const char* marker) {
  if (line_end - line_start < 3 || text.compare(line_start, 3, marker) != 0) return false;
  return line_end - line_start == 3 || text[line_start + 3] == ' ' ||
         text[line_start + 3] == '\t' || text[line_start + 3] == '\r';
}

// Splits a multi-document YAML text into byte ranges at "---" lines; a "..."
// line ends a document (its range runs to the next "---").
std::vector<std::pair<size_t, size_t>> SplitDocuments(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> ranges;
  size_t begin = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t line_end = nl == std::string::npos ? text.size() : nl;
    if (pos > begin && IsSeparator(text, pos, line_end, "---")) {
      ranges.emplace_back(begin, pos);
      begin = pos;
    }
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  ranges.emplace_back(begin, text.size());
  return ranges;
}

class FolderStore : public VcStore {
 public:
  FolderStore(std::string dir, uint64_t seed) : dir_(std::move(dir)), seed_(seed) {}

  Result<std::vector<Json>> List(VcKind kind, const std::string& ns) override {
    BASALT_ASSIGN_OR_RETURN(std::vector<FolderDoc> docs, Load());
    std::vector<Json> out;
    for (FolderDoc& d : docs) {
      if (!SameKind(d.object, kind)) continue;
      if (KindInfo(kind).namespaced && !ns.empty() && MetaStr(d.object, "namespace") != ns)
        continue;
      out.push_back(std::move(d.object));
    }
    SortByKey(&out);
    return out;
  }

  Result<Json> Get(VcKind kind, const std::string& ns, const std::string& name) override {
    BASALT_ASSIGN_OR_RETURN(std::vector<FolderDoc> docs, Load());
    const FolderDoc* doc = Find(docs, kind, ns, name);
    if (doc == nullptr)
      return Status::NotFound(ObjectLabel(kind, ns, name) + " not found in " + Describe());
    return doc->object;
  }

  Result<Json> Create(VcKind kind, const std::string& ns, const Json& obj) override {
    BASALT_ASSIGN_OR_RETURN(std::vector<FolderDoc> docs, Load());
    const VcKindInfo& info = KindInfo(kind);
    Json stored = obj;
    stored["apiVersion"] = info.api_version;
    stored["kind"] = info.kind;
    Json& meta = stored["metadata"];
    if (info.namespaced) {
      meta["namespace"] = ns;
    } else {
      meta.erase("namespace");
    }
    std::string name = MetaStr(stored, "name");
    const std::string generate = MetaStr(stored, "generateName");
    if (name.empty() && !generate.empty()) {
      // The API server draws a random suffix; here it comes from the seed, and
      // a clash with an existing object moves on to the next candidate.
      for (int attempt = 0; name.empty() || Find(docs, kind, ns, name) != nullptr; ++attempt) {
        name = generate + GeneratedSuffix(seed_, generate, attempt);
      }
      meta["name"] = name;
    }
    if (name.empty()) return Status::InvalidArgument(info.kind + ": metadata.name: missing");
    if (Find(docs, kind, ns, name) != nullptr) {
      return Status::AlreadyExists(ObjectLabel(kind, ns, name) + " already exists in " +
                                   Describe());
    }
    std::string base = info.plural.substr(0, info.plural.size() - 1);  // "jobs" -> "job"
    base += "-" + (info.namespaced ? ns + "-" : std::string()) + name;
    fs::path path = fs::path(dir_) / (base + ".yaml");
    for (int n = 2; fs::exists(path); ++n)
      path = fs::path(dir_) / (base + "-" + std::to_string(n) + ".yaml");
    std::ofstream out(path, std::ios::binary);
    out << JsonToYaml(stored);
    out.close();
    if (!out) return Status::Unavailable(path.string() + ": cannot write file");
    return stored;
  }

  Status Delete(VcKind kind, const std::string& ns, const std::string& name) override {
    BASALT_ASSIGN_OR_RETURN(std::vector<FolderDoc> docs, Load());
    const FolderDoc* doc = Find(docs, kind, ns, name);
    if (doc == nullptr)
      return Status::NotFound(ObjectLabel(kind, ns, name) + " not found in " + Describe());
    BASALT_ASSIGN_OR_RETURN(std::string text, ReadText(doc->file));
    std::string rest = text.substr(0, doc->begin) + text.substr(doc->end);
    // A file left with nothing but separators, comments and blank lines goes.
    bool empty = true;
    try {
      for (const YAML::Node& n : YAML::LoadAll(rest)) empty = empty && (!n || n.IsNull());
    } catch (const YAML::Exception&) {
      empty = false;
    }
    std::error_code ec;
    if (empty) {
      fs::remove(doc->file, ec);
      if (ec) return Status::Unavailable(doc->file + ": cannot remove file: " + ec.message());
      return Status::Ok();
    }
    std::ofstream out(doc->file, std::ios::binary | std::ios::trunc);
    out << rest;
    out.close();
    if (!out) return Status::Unavailable(doc->file + ": cannot write file");
    return Status::Ok();
  }

  std::string Describe() const override { return "folder " + dir_; }

 private:
  static const FolderDoc* Find(const std::vector<FolderDoc>& docs, VcKind kind,
                               const std::string& ns, const std::string& name) {
    for (const FolderDoc& d : docs) {
      if (!SameKind(d.object, kind) || MetaStr(d.object, "name") != name) continue;
      if (KindInfo(kind).namespaced && MetaStr(d.object, "namespace") != ns) continue;
      return &d;
    }
    return nullptr;
  }

  Result<std::vector<FolderDoc>> Load() {
    std::error_code ec;
    if (!fs::is_directory(dir_, ec)) return Status::NotFound(dir_ + ": --cluster: no such folder");
    // The decoder first: every message names file, line, object and field.
    ClusterObjects checked;
    BASALT_RETURN_IF_ERROR(LoadPath(dir_, &checked));
    std::vector<std::string> files;
    for (fs::recursive_directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (!it->is_regular_file(type_ec) || type_ec) continue;
      std::string ext = it->path().extension().string();
      if (ext == ".yaml" || ext == ".yml" || ext == ".json") files.push_back(it->path().string());
    }
    if (ec) return Status::InvalidArgument(dir_ + ": cannot list folder: " + ec.message());
    std::sort(files.begin(), files.end());
    std::vector<FolderDoc> docs;
    for (const std::string& f : files) {
      BASALT_ASSIGN_OR_RETURN(std::string text, ReadText(f));
      std::vector<std::pair<size_t, size_t>> ranges;
      if (fs::path(f).extension() == ".json") {
        ranges.emplace_back(0, text.size());
      } else {
        ranges = SplitDocuments(text);
      }
      for (auto [begin, end] : ranges) {
        std::string chunk = text.substr(begin, end - begin);
        int line = static_cast<int>(
                       std::count(text.begin(), text.begin() + static_cast<long>(begin), '\n')) +
                   1;
        BASALT_ASSIGN_OR_RETURN(Json obj, ParseYamlDocument(chunk, f + ":" + std::to_string(line)));
        if (!obj.is_object()) continue;
        docs.push_back(FolderDoc{f, begin, end, std::move(obj)});
      }
    }
    return docs;
  }

  std::string dir_;
  uint64_t seed_;
};

// ---- the API server back end ----

class ApiStore : public VcStore {
 public:
  ApiStore(std::unique_ptr<kube::Client> client, std::string server)
      : client_(std::move(client)), server_(std::move(server)) {}

  Result<std::vector<Json>> List(VcKind kind, const std::string& ns) override {
    kube::ResourcePath path = PathOf(kind);
    auto list = client_->List(KindInfo(kind).namespaced && !ns.empty() ? path.Namespaced(ns)
                                                                       : path.Collection());
    if (!list.ok()) return Failure(list.error(), kind, ns, "");
    std::vector<Json> items = std::move(list->items);
    SortByKey(&items);
    return items;
  }

  Result<Json> Get(VcKind kind, const std::string& ns, const std::string& name) override {
    auto obj = client_->Get(PathOf(kind).Object(Scope(kind, ns), name));
    if (!obj.ok()) return Failure(obj.error(), kind, ns, name);
    return std::move(obj).value();
  }

  Result<Json> Create(VcKind kind, const std::string& ns, const Json& obj) override {
    kube::ResourcePath path = PathOf(kind);
    std::string collection = KindInfo(kind).namespaced ? path.Namespaced(ns) : path.Collection();
    auto reply = client_->Call("POST", collection, {}, obj.dump(), "application/json");
    std::string name = obj.contains("metadata") ? MetaStr(obj, "name") : "";
    if (!reply.ok()) return Failure(reply.error(), kind, ns, name);
    Json created = Json::parse(reply->body, nullptr, false);
    if (!created.is_object())
      return Status::Internal("POST " + collection + ": the reply is not a JSON object");
    return created;
  }

  Status Delete(VcKind kind, const std::string& ns, const std::string& name) override {
    auto reply = client_->Call("DELETE", PathOf(kind).Object(Scope(kind, ns), name));
    if (!reply.ok()) return Failure(reply.error(), kind, ns, name);
    return Status::Ok();
  }

  std::string Describe() const override { return "server " + server_; }

 private:
  static kube::ResourcePath PathOf(VcKind kind) {
    const VcKindInfo& info = KindInfo(kind);
    return kube::ResourcePath{"/apis/" + info.api_version, info.plural};
  }
  static std::string Scope(VcKind kind, const std::string& ns) {
    return KindInfo(kind).namespaced ? ns : "";
  }

  // A 404 reads like the folder's; anything else keeps the server's words.
  Status Failure(const kube::ApiError& e, VcKind kind, const std::string& ns,
                 const std::string& name) const {
    if (e.code == 404 && !name.empty())
      return Status::NotFound(ObjectLabel(kind, ns, name) + " not found in " + Describe());
    if (e.code == 409 && e.reason == "AlreadyExists") {
      return Status::AlreadyExists(ObjectLabel(kind, ns, name) + " already exists in " +
                                   Describe());
    }
    return e.ToStatus();
  }

  std::unique_ptr<kube::Client> client_;
  std::string server_;
};

// vcctl's loading rules: --kubeconfig, else the first file of $KUBECONFIG,
// else ~/.kube/config when present, else the in-cluster service account.
Result<kube::KubeConfig> ResolveKubeconfig(const StoreOptions& o) {
  const std::string path = kube::KubeconfigPathAsVcctl(o.kubeconfig);
  if (path.empty()) {
    auto in_cluster = kube::InClusterConfig();
    if (!in_cluster.ok()) {
      return Status::InvalidArgument(
          in_cluster.status().message() +
          " (no --cluster DIR or --kubeconfig given, and not running in a cluster)");
    }
    return in_cluster;
  }
  return kube::LoadKubeconfig(path, o.context);
}

}  // namespace

const VcKindInfo& KindInfo(VcKind kind) {
  static const VcKindInfo kJob{"batch.volcano.sh/v1alpha1", "Job", "jobs", true};
  static const VcKindInfo kQueue{"scheduling.volcano.sh/v1beta1", "Queue", "queues", false};
  static const VcKindInfo kCommand{"bus.volcano.sh/v1alpha1", "Command", "commands", true};
  switch (kind) {
    case VcKind::kJob:
      return kJob;
    case VcKind::kQueue:
      return kQueue;
    case VcKind::kCommand:
      return kCommand;
  }
  return kJob;
}

std::string ObjectLabel(VcKind kind, const std::string& ns, const std::string& name) {
  const VcKindInfo& info = KindInfo(kind);
  return info.kind + " " + (info.namespaced ? ns + "/" : std::string()) + name;
}

std::string GeneratedSuffix(uint64_t seed, const std::string& generate_name, int attempt) {
  // Kubernetes' generated-name alphabet (no vowels, no look-alike digits).
  static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the prefix, mixed with seed and attempt
  for (unsigned char c : generate_name) h = (h ^ c) * 1099511628211ull;
  uint64_t x = h ^ (seed * 0x9e3779b97f4a7c15ull) ^ (static_cast<uint64_t>(attempt) << 32);
  std::string out;
  for (int i = 0; i < 5; ++i) {
    // splitmix64 steps: every character from fresh, well-mixed bits.
    x += 0x9e3779b97f4a7c15ull;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    out += kAlphabet[z % (sizeof(kAlphabet) - 1)];
  }
  return out;
}

std::unique_ptr<VcStore> NewFolderStore(const std::string& dir, uint64_t seed) {
  return std::make_unique<FolderStore>(dir, seed);
}

Result<std::unique_ptr<VcStore>> OpenStore(const StoreOptions& options) {
  if (!options.cluster_dir.empty()) {
    std::error_code ec;
    if (!fs::is_directory(options.cluster_dir, ec)) {
      return Status::NotFound(options.cluster_dir + ": --cluster: no such folder");
    }
    return std::unique_ptr<VcStore>(NewFolderStore(options.cluster_dir, options.seed));
  }
  BASALT_ASSIGN_OR_RETURN(kube::KubeConfig config, ResolveKubeconfig(options));
  kube::ClientOptions opt;
  opt.server = config.server;
  opt.bearer_token = config.token;
  opt.user_agent = "basalt/0.1.0";
  opt.max_attempts = 3;
  kube::CurlOptions curl;
  curl.tls = config.tls;
  auto client = std::make_unique<kube::Client>(opt, std::make_unique<kube::CurlTransport>(curl));
  return std::unique_ptr<VcStore>(std::make_unique<ApiStore>(std::move(client), config.server));
}

}  // namespace basalt
