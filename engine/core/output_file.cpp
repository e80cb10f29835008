// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace ek {

namespace {

constexpr std::size_t kBufferBytes = 1 << 20;
constexpr int kMaxLinkHops = 40;

std::string reason(int error) { return std::strerror(error); }

std::string folderOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string nameOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// The process's umask, read without changing it (umask(2) would, for every thread).
mode_t currentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) {
      mode_t mask = 0;
      for (char c : line.substr(6))
        if (c >= '0' && c <= '7') mask = static_cast<mode_t>(mask * 8 + (c - '0'));
      return mask;
    }
  return 022;
}

/// Writes all of `data` to `fd` (partial writes and EINTR continued). @returns 0 or errno.
int writeAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

const char* kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// The temporary's name beside `target`: ".NAME.XXXXXX", the name shortened so that the whole
/// stays within the file system's 255 bytes.
std::string temporaryTemplate(const std::string& target) {
  std::string name = nameOf(target);
  if (name.size() > 200) name.resize(200);
  const std::string folder = folderOf(target);
  return (folder == "/" ? std::string("/") : folder + "/") + "." + name + ".XXXXXX";
}

/// Creates a unique temporary beside `target` (O_EXCL: nothing existing is opened).
int createTemporary(const std::string& target, std::string& temporary, int& error) {
  std::string t = temporaryTemplate(target);
  std::vector<char> buf(t.begin(), t.end());
  buf.push_back('\0');
  const int fd = ::mkostemp(buf.data(), O_CLOEXEC);
  error = fd < 0 ? errno : 0;
  if (fd >= 0) temporary.assign(buf.data());
  return fd;
}

}  // namespace

std::string resolveOutputTarget(const std::string& path) {
  std::string p = path;
  for (int hop = 0; hop < kMaxLinkHops; ++hop) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::vector<char> buf(PATH_MAX + 1);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
    if (n < 0) throw IoError(path + ": cannot read the symbolic link " + p + " (" + reason(errno) + ")");
    std::string link(buf.data(), static_cast<std::size_t>(n));
    p = !link.empty() && link[0] == '/' ? link : folderOf(p) + "/" + link;
  }
  throw IoError(path + ": too many levels of symbolic links");
}

OutputFile::OutputFile(const std::string& path, std::string what) : path_(path), what_(std::move(what)) {
  if (path.empty()) throw IoError("no file name given for the " + what_);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
      // A stream cannot be replaced: write it directly. O_NONBLOCK opens a FIFO without a reader
      // with ENXIO at once instead of waiting for one.
      stream_ = true;
      fd_ = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (S_ISFIFO(st.st_mode) ? O_NONBLOCK : 0));
      if (fd_ < 0) {
        const int e = errno;
        throw IoError(path + ": cannot write the " + what_ + " (" +
                      (e == ENXIO ? std::string("a FIFO with no reader") : reason(e)) + ")");
      }
      if (S_ISFIFO(st.st_mode)) ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
      return;
    }
    if (!S_ISREG(st.st_mode))
      throw IoError(path + ": is " + kindOf(st.st_mode) + ", not a " + what_ + "; nothing was written");
    if (::access(path.c_str(), W_OK) != 0)
      throw IoError(path + ": cannot write the " + what_ + " (" + reason(errno) + "); the file is unchanged");
    mode_ = st.st_mode & 07777;
    uid_ = st.st_uid;
    gid_ = st.st_gid;
  } else if (errno == ENOENT) {
    mode_ = 0666 & ~currentUmask();
  } else {
    throw IoError(path + ": cannot write the " + what_ + " (" + reason(errno) + ")");
  }
  target_ = resolveOutputTarget(path);
  int error = 0;
  fd_ = createTemporary(target_, temporary_, error);
  if (fd_ < 0)
    throw IoError(path + ": cannot write the " + what_ + " (cannot create a file in " + folderOf(target_) + ": " +
                  reason(error) + ")");
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

void OutputFile::fail(const std::string& action, int error) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
  throw IoError(path_ + ": " + action + " the " + what_ + " failed (" + reason(error) + ")" +
                (stream_ ? std::string() : "; the previous file is unchanged"));
}

void OutputFile::flushBuffer() {
  if (buffer_.empty()) return;
  if (fd_ < 0) throw IoError(path_ + ": the " + what_ + " is closed");
  const int e = writeAll(fd_, buffer_.data(), buffer_.size());
  buffer_.clear();
  if (e != 0) fail("writing", e);
}

void OutputFile::write(std::string_view text) {
  if (buffer_.size() + text.size() > kBufferBytes) {
    flushBuffer();
    if (text.size() > kBufferBytes) {
      if (fd_ < 0) throw IoError(path_ + ": the " + what_ + " is closed");
      if (const int e = writeAll(fd_, text.data(), text.size())) fail("writing", e);
      return;
    }
  }
  buffer_.append(text);
}

void OutputFile::commit() {
  if (committed_) return;
  flushBuffer();
  if (fd_ < 0) throw IoError(path_ + ": the " + what_ + " is closed");
  if (!stream_) {
    // The replaced file's owner and permissions (chown first: it clears set-id bits).
    if (uid_ >= 0 && (static_cast<uid_t>(uid_) != ::geteuid() || static_cast<gid_t>(gid_) != ::getegid()))
      (void)!::fchown(fd_, static_cast<uid_t>(uid_), static_cast<gid_t>(gid_));
    if (::fchmod(fd_, static_cast<mode_t>(mode_)) != 0) fail("setting the permissions of", errno);
    if (::fsync(fd_) != 0) fail("writing", errno);
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("writing", errno);
  if (!stream_) {
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
      // The content is complete: keep it under a name of its own beside the target (a sticky
      // folder where the old file is someone else's, a folder put in the file's place).
      const int e = errno;
      std::string kept = temporary_;
      for (int k = 0; k < 100; ++k) {
        const std::string candidate = target_ + (k ? ".new" + std::to_string(k) : ".new");
        if (::link(temporary_.c_str(), candidate.c_str()) == 0) {  // never replaces a file there
          ::unlink(temporary_.c_str());
          kept = candidate;
          break;
        }
        if (errno != EEXIST) break;
      }
      temporary_.clear();
      throw IoError(path_ + ": cannot replace the " + what_ + " (" + reason(e) + "); what was written is kept in " + kept);
    }
    temporary_.clear();
    // The rename itself on the disk: sync the folder (best effort: not every file system can).
    const int dir = ::open(folderOf(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }
  committed_ = true;
}

void writeFile(const std::string& path, std::string_view text, const std::string& what) {
  OutputFile f(path, what);
  f.write(text);
  f.commit();
}

void checkWritable(const std::string& path, const std::string& what) {
  if (path.empty()) throw IoError("no file name given for the " + what);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
      // Opening a FIFO's write end and closing it would tell its reader the data ended.
      if (::access(path.c_str(), W_OK) != 0)
        throw IoError(path + ": cannot write the " + what + " (" + reason(errno) + ")");
      return;
    }
    if (!S_ISREG(st.st_mode))
      throw IoError(path + ": is " + kindOf(st.st_mode) + ", not a " + what + "; nothing was written");
    if (::access(path.c_str(), W_OK) != 0)
      throw IoError(path + ": cannot write the " + what + " (" + reason(errno) + "); the file is unchanged");
  } else if (errno != ENOENT) {
    throw IoError(path + ": cannot write the " + what + " (" + reason(errno) + ")");
  }
  const std::string target = resolveOutputTarget(path);
  std::string temporary;
  int error = 0;
  const int fd = createTemporary(target, temporary, error);
  if (fd < 0)
    throw IoError(path + ": cannot write the " + what + " (cannot create a file in " + folderOf(target) + ": " +
                  reason(error) + ")");
  ::close(fd);
  ::unlink(temporary.c_str());
}

AppendFile::AppendFile(const std::string& path, std::string_view header, std::string what)
    : path_(path), what_(std::move(what)) {
  if (path.empty()) throw IoError("no file name given for the " + what_);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw IoError(path + ": is " + kindOf(st.st_mode) + ", not a " + what_ + " (it is read again to resume)");
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
  if (fd_ < 0) throw IoError(path + ": cannot write the " + what_ + " (" + reason(errno) + ")");
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw IoError(path + ": not a regular file, not a " + what_);
  }
  if (st.st_size == 0) {
    append(header);
    wroteHeader_ = true;
  }
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AppendFile::append(std::string_view row) {
  if (const int e = writeAll(fd_, row.data(), row.size()))
    throw IoError(path_ + ": cannot append to the " + what_ + " (" + reason(e) + ")");
  if (::fsync(fd_) != 0) throw IoError(path_ + ": cannot append to the " + what_ + " (" + reason(errno) + ")");
}

namespace {

struct FileKey {
  bool exists = false, stream = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string path;  // when it does not exist
};

FileKey keyOf(const std::string& path) {
  FileKey k;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    k.exists = true;
    k.stream = S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode);
    k.dev = st.st_dev;
    k.ino = st.st_ino;
    return k;
  }
  std::error_code ec;
  std::string target = path;
  try {
    target = resolveOutputTarget(path);  // a dangling link names the file it will create
  } catch (const IoError&) {
  }
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(target, ec), ec);
  k.path = ec ? std::filesystem::absolute(target).lexically_normal().string() : canonical.string();
  return k;
}

bool same(const FileKey& a, const FileKey& b) {
  if (a.stream || b.stream || a.exists != b.exists) return false;
  return a.exists ? a.dev == b.dev && a.ino == b.ino : a.path == b.path;
}

}  // namespace

bool sameFile(const std::string& a, const std::string& b) { return same(keyOf(a), keyOf(b)); }

void refuseSameFiles(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  std::vector<FileKey> in, out;
  for (const NamedPath& f : inputs) in.push_back(keyOf(f.path));
  for (const NamedPath& f : outputs) out.push_back(keyOf(f.path));
  std::string clashes;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    if (outputs[o].path.empty()) continue;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (!inputs[i].path.empty() && same(out[o], in[i]))
        clashes += (clashes.empty() ? "" : "\n") + outputs[o].what + " '" + printableExcerpt(outputs[o].path) +
                   "' is the same file as " + inputs[i].what + " '" + printableExcerpt(inputs[i].path) +
                   "': an output never replaces an input";
    for (std::size_t p = 0; p < o; ++p)
      if (!outputs[p].path.empty() && same(out[o], out[p]))
        clashes += (clashes.empty() ? "" : "\n") + outputs[o].what + " '" + printableExcerpt(outputs[o].path) +
                   "' is the same file as " + outputs[p].what + " '" + printableExcerpt(outputs[p].path) +
                   "': each output needs a file of its own";
  }
  if (!clashes.empty()) throw IoError(clashes);
}

}  // namespace ek
