// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file output_file.h
/// The one way Elastokin writes a file (results, projects, reports, study results, exports):
/// nothing the user had is lost when a write fails, and nothing but the named file is touched.
///
/// What the path names decides how it is written:
/// - a regular file, or none yet: written to a unique temporary beside it (`.NAME.XXXXXX`, created
///   with O_EXCL, so a planted file or symlink is never followed), synced, given the old file's
///   permissions and owner (a new file: 0666 less the umask), then renamed over the target. A
///   failure at any point (full disk, file size limit, a signal that ends the program) leaves the
///   old file as it was; when only the final rename fails (a sticky folder where the old file is
///   someone else's), the complete new content is kept beside it as `NAME.new` (or `.new1`, ...,
///   never replacing a file) and the error names it;
/// - a symbolic link: followed (chains too, also a dangling one) and its target replaced as above;
///   the link stays a link;
/// - a character device (`/dev/null`, a terminal) or a FIFO: written directly, as a stream, since
///   it cannot be replaced (a FIFO without a reader is refused rather than waited for);
/// - a directory, a block device or a socket: refused.
/// Errors are IoError naming the path and the system's reason.

#include <cstddef>
#include <string>
#include <vector>
#include <string_view>

namespace ek {

/// A file being written. Nothing replaces the target until commit(); destroying an uncommitted
/// OutputFile removes its temporary (the target is untouched).
class OutputFile {
 public:
  /// Opens `path` for writing as described above. `what` names the file's kind in messages
  /// ("results file", "project", "PDF report").
  /// @throws IoError (a directory, a missing folder, no permission, a FIFO without a reader).
  explicit OutputFile(const std::string& path, std::string what = "file");
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Appends to the file (buffered). @throws IoError when the system refuses the data.
  void write(std::string_view text);
  OutputFile& operator<<(std::string_view text) {
    write(text);
    return *this;
  }
  /// Writes what is buffered, syncs and puts the file in place. @throws IoError; the old file is
  /// then unchanged (a stream target may hold part of the data).
  void commit();

  const std::string& path() const { return path_; }

 private:
  void flushBuffer();
  [[noreturn]] void fail(const std::string& action, int error);

  std::string path_, what_;
  std::string target_;     ///< the file replaced (symlinks resolved); empty for a stream
  std::string temporary_;  ///< the temporary written; empty for a stream
  int fd_ = -1;
  bool stream_ = false, committed_ = false;
  unsigned mode_ = 0;  ///< permissions of the file in place after commit()
  long long uid_ = -1, gid_ = -1;
  std::string buffer_;
};

/// Writes `text` to `path` through an OutputFile. @throws IoError.
void writeFile(const std::string& path, std::string_view text, const std::string& what = "file");

/// Checks, without changing anything, that `path` could be written (before a long run rather
/// than after it): its folder exists and takes a new file, or it is a writable stream.
/// @throws IoError naming the path and the reason.
void checkWritable(const std::string& path, const std::string& what = "file");

/// A file rows are appended to as they come (a study's results): every row reaches the disk
/// before append() returns, and an empty file gets the header first. Only a regular file (or a new
/// one) is accepted, since it is read again to resume.
class AppendFile {
 public:
  /// Opens (creates) `path`; when the file is empty, writes `header` (one line, with its '\n').
  /// @throws IoError.
  AppendFile(const std::string& path, std::string_view header, std::string what = "file");
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;
  /// Writes the row and syncs it to the disk. @throws IoError.
  void append(std::string_view row);
  /// The file was empty (or new) when it was opened, so the header was written.
  bool wroteHeader() const { return wroteHeader_; }

 private:
  std::string path_, what_;
  int fd_ = -1;
  bool wroteHeader_ = false;
};

/// The target a write of `path` replaces: symlinks resolved (also a dangling link's target), or
/// `path` itself. @throws IoError for a link loop.
std::string resolveOutputTarget(const std::string& path);

/// A file a command names, with what it is for the message ("--metrics", "the project file").
struct NamedPath {
  std::string what;
  std::string path;
};

/// Whether two paths name the same file, by the identity refuseSameFiles() uses.
bool sameFile(const std::string& a, const std::string& b);

/// Refuses, before anything is read or written, an output that is the same file as an input or
/// as another output. Same by identity, not by name: for files that exist, the device and inode
/// (symbolic and hard links, `.` and `..` included); for outputs not there yet, the absolute path
/// with its folders' links resolved. Streams (`/dev/null`, a FIFO) are never the same file.
/// Empty paths are skipped. @throws IoError listing every clash, one per line.
void refuseSameFiles(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

}  // namespace ek
