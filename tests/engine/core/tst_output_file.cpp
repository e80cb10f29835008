// SPDX-License-Identifier: GPL-3.0-or-later
// The one writer of every file (output_file.h): a regular file is replaced whole or not at all
// (full disk through a file-size limit and, as root, a small tmpfs), a symlink's target is
// replaced and the link kept, a planted file at a temporary-looking name is never followed, a
// FIFO and a character device are streamed (a FIFO without reader refused, not waited for),
// directories and block devices refused, permissions kept; appended rows reach the file with a
// header first in an empty file.
#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/output_file.h"

using namespace ek;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

/// The names in `dir` other than those given: temporaries left behind show up here.
QStringList othersIn(const std::string& dir, const QStringList& expected) {
  QStringList names;
  for (const auto& e : fs::directory_iterator(dir)) {
    const QString n = QString::fromStdString(e.path().filename().string());
    if (!expected.contains(n)) names << n;
  }
  return names;
}

/// Runs `write` with the file size limited to `bytes` (a full disk without root): writes beyond
/// it fail with EFBIG (SIGXFSZ ignored, as it would otherwise end the test).
template <class F>
void withFileSizeLimit(rlim_t bytes, F write) {
  rlimit old{};
  getrlimit(RLIMIT_FSIZE, &old);
  rlimit small = old;
  small.rlim_cur = bytes;
  auto previous = signal(SIGXFSZ, SIG_IGN);
  setrlimit(RLIMIT_FSIZE, &small);
  try {
    write();
  } catch (...) {
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, previous);
    throw;
  }
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, previous);
}

}  // namespace

class TestOutputFile : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  std::string dir() const { return tmp_.path().toStdString(); }
  std::string at(const char* name) const { return dir() + "/" + name; }

 private slots:
  void init() {
    for (const auto& e : fs::directory_iterator(dir())) fs::remove_all(e.path());
  }

  void newFileGetsTheUmaskPermissions() {
    const mode_t mask = umask(027);
    writeFile(at("new.csv"), "a,b\n1,2\n", "results file");
    umask(mask);
    QCOMPARE(slurp(at("new.csv")), std::string("a,b\n1,2\n"));
    struct stat st {};
    QCOMPARE(stat(at("new.csv").c_str(), &st), 0);
    QCOMPARE(st.st_mode & 0777, mode_t(0640));
    QCOMPARE(othersIn(dir(), {"new.csv"}), QStringList());
  }

  void regularFileIsReplacedWholeKeepingItsPermissions() {
    put(at("r.csv"), "old");
    chmod(at("r.csv").c_str(), 0604);
    struct stat before {};
    stat(at("r.csv").c_str(), &before);
    writeFile(at("r.csv"), "new contents", "results file");
    struct stat after {};
    stat(at("r.csv").c_str(), &after);
    QCOMPARE(slurp(at("r.csv")), std::string("new contents"));
    QCOMPARE(after.st_mode & 07777, mode_t(0604));
    QVERIFY(after.st_ino != before.st_ino);  // a new file renamed over the old one, not rewritten in place
    QCOMPARE(othersIn(dir(), {"r.csv"}), QStringList());
  }

  void uncommittedWriteLeavesTheOldFile() {
    put(at("r.csv"), "old");
    {
      OutputFile f(at("r.csv"), "results file");
      f.write("half of the new");
    }  // destroyed before commit(): an exception or a stop in the middle of writing
    QCOMPARE(slurp(at("r.csv")), std::string("old"));
    QCOMPARE(othersIn(dir(), {"r.csv"}), QStringList());
  }

  void symlinkTargetIsReplacedAndTheLinkKept() {
    fs::create_directory(at("data"));
    put(at("data/target.json"), "old");
    fs::create_symlink("data/target.json", at("link1.json"));
    fs::create_symlink("link1.json", at("link2.json"));  // a chain
    writeFile(at("link2.json"), "new", "project");
    QVERIFY(fs::is_symlink(at("link2.json")));
    QVERIFY(fs::is_symlink(at("link1.json")));
    QCOMPARE(slurp(at("data/target.json")), std::string("new"));
    QCOMPARE(othersIn(at("data"), {"target.json"}), QStringList());  // the temporary was beside the target
    // A dangling link: its target is created.
    fs::create_symlink("data/later.json", at("dangling.json"));
    writeFile(at("dangling.json"), "made", "project");
    QVERIFY(fs::is_symlink(at("dangling.json")));
    QCOMPARE(slurp(at("data/later.json")), std::string("made"));
  }

  void plantedTemporaryNamesAreNeverFollowed() {
    // The fixed temporary names writers used before (.NAME.partial, NAME.tmp) planted as symlinks
    // to a victim: the victim must stay as it was.
    put(at("victim"), "precious");
    fs::create_symlink(at("victim"), at(".out.csv.partial"));
    fs::create_symlink(at("victim"), at("out.csv.tmp"));
    writeFile(at("out.csv"), "results", "results file");
    checkWritable(at("out.csv"), "results file");
    QCOMPARE(slurp(at("victim")), std::string("precious"));
    QCOMPARE(slurp(at("out.csv")), std::string("results"));
  }

  void fifoIsStreamedAndOneWithoutReaderRefused() {
    QCOMPARE(mkfifo(at("pipe").c_str(), 0600), 0);
    // No reader: refused at once, not waited for.
    try {
      writeFile(at("pipe"), "x", "results file");
      QFAIL("a FIFO without a reader was accepted");
    } catch (const IoError& e) {
      QVERIFY2(std::string(e.what()).find("a FIFO with no reader") != std::string::npos, e.what());
    }
    checkWritable(at("pipe"), "results file");  // checking opens nothing
    std::string got;
    std::thread reader([&] {
      std::ifstream in(at("pipe"), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      got = ss.str();
    });
    // The reader opens its end soon; retry until it is there.
    bool written = false;
    for (int attempt = 0; attempt < 2000 && !written; ++attempt) {
      try {
        writeFile(at("pipe"), "streamed\n", "results file");
        written = true;
      } catch (const IoError&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    reader.join();
    QVERIFY(written);
    QCOMPARE(got, std::string("streamed\n"));
    struct stat st {};
    stat(at("pipe").c_str(), &st);
    QVERIFY(S_ISFIFO(st.st_mode));  // still a FIFO, not replaced by a regular file
  }

  void characterDeviceIsWrittenNotReplaced() {
    // A copy of /dev/null (mknod needs root); /dev/null itself otherwise, which must stay a device.
    std::string null = at("null");
    if (mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) null = "/dev/null";
    writeFile(null, "discarded", "results file");
    struct stat st {};
    QCOMPARE(stat(null.c_str(), &st), 0);
    QVERIFY(S_ISCHR(st.st_mode));
    checkWritable(null, "results file");
  }

  void directoriesAndMissingFoldersAreRefused() {
    fs::create_directory(at("folder"));
    for (const std::string& bad : {at("folder"), at("missing/x.csv")}) {
      try {
        writeFile(bad, "x", "results file");
        QFAIL("accepted");
      } catch (const IoError& e) {
        QVERIFY2(std::string(e.what()).rfind(bad + ": ", 0) == 0, e.what());
      }
      QVERIFY_THROWS_EXCEPTION(IoError, checkWritable(bad, "results file"));
    }
    QVERIFY(fs::is_directory(at("folder")));
  }

  void readOnlyFileIsNotReplaced() {
    if (geteuid() == 0) QSKIP("root may write a read-only file");
    put(at("ro.json"), "keep");
    chmod(at("ro.json").c_str(), 0444);
    QVERIFY_THROWS_EXCEPTION(IoError, writeFile(at("ro.json"), "new", "project"));
    QCOMPARE(slurp(at("ro.json")), std::string("keep"));
  }

  void fullDiskLeavesTheOldFile() {
    put(at("report.pdf"), "old report");
    const std::string big(1 << 20, 'x');
    withFileSizeLimit(64 * 1024, [&] {
      try {
        writeFile(at("report.pdf"), big, "PDF report");
        QFAIL("a write beyond the limit succeeded");
      } catch (const IoError& e) {
        QVERIFY2(std::string(e.what()).find("the previous file is unchanged") != std::string::npos, e.what());
      }
    });
    QCOMPARE(slurp(at("report.pdf")), std::string("old report"));
    QCOMPARE(othersIn(dir(), {"report.pdf"}), QStringList());
  }

  void fullTmpfsLeavesTheOldFile() {
    const std::string mnt = at("small");
    fs::create_directory(mnt);
    if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k") != 0) QSKIP("mounting a tmpfs needs root");
    put(mnt + "/report.pdf", "old report");
    bool threw = false;
    try {
      writeFile(mnt + "/report.pdf", std::string(1 << 20, 'x'), "PDF report");
    } catch (const IoError& e) {
      threw = std::string(e.what()).find("No space left on device") != std::string::npos;
    }
    const std::string kept = slurp(mnt + "/report.pdf");
    const QStringList left = othersIn(mnt, {"report.pdf"});
    umount(mnt.c_str());
    QVERIFY(threw);
    QCOMPARE(kept, std::string("old report"));
    QCOMPARE(left, QStringList());
  }

  void appendWritesTheHeaderIntoAnEmptyFile() {
    {
      AppendFile f(at("new.results.csv"), "run,x\n", "study results file");
      QVERIFY(f.wroteHeader());
      f.append("1,0.5\n");
    }
    put(at("empty.results.csv"), "");
    {
      AppendFile f(at("empty.results.csv"), "run,x\n", "study results file");
      QVERIFY(f.wroteHeader());
      f.append("1,0.5\n");
    }
    {
      AppendFile f(at("empty.results.csv"), "run,x\n", "study results file");
      QVERIFY(!f.wroteHeader());
      f.append("2,0.25\n");
    }
    QCOMPARE(slurp(at("new.results.csv")), std::string("run,x\n1,0.5\n"));
    QCOMPARE(slurp(at("empty.results.csv")), std::string("run,x\n1,0.5\n2,0.25\n"));
    QCOMPARE(mkfifo(at("pipe").c_str(), 0600), 0);
    QVERIFY_THROWS_EXCEPTION(IoError, AppendFile(at("pipe"), "run\n", "study results file"));
  }

  void appendOnAFullDiskSaysSo() {
    put(at("s.csv"), "run,x\n");
    withFileSizeLimit(16, [&] {
      AppendFile f(at("s.csv"), "run,x\n", "study results file");
      QVERIFY_THROWS_EXCEPTION(IoError, f.append("1,0.123456789012345\n"));
    });
  }

  // When only the final rename fails (here a folder put in the target's place while the file was
  // written), the new content is kept beside it under a stated name, never lost.
  void contentThatCannotReplaceIsKeptBeside() {
    put(at("r.csv.new"), "older keep");  // an earlier kept file is not replaced either
    OutputFile f(at("r.csv"), "results file");
    f.write("time [s]\n0\n");
    fs::create_directory(at("r.csv"));
    put(at("r.csv/inside"), "x");
    try {
      f.commit();
      QFAIL("committed onto a folder");
    } catch (const IoError& e) {
      QVERIFY2(QString(e.what()).contains("what was written is kept in " + QString::fromStdString(at("r.csv.new1"))), e.what());
    }
    QCOMPARE(slurp(at("r.csv.new1")), std::string("time [s]\n0\n"));
    QCOMPARE(slurp(at("r.csv.new")), std::string("older keep"));
    QCOMPARE(othersIn(dir(), {"r.csv", "r.csv.new", "r.csv.new1"}), QStringList());
  }

  // The same file by identity: name, symbolic link, hard link, "..", a dangling link's target,
  // two spellings of a file not there yet; streams and distinct files are not.
  void sameFileByIdentity() {
    put(at("p.json"), "{}");
    fs::create_directory(at("sub"));
    fs::create_symlink(at("p.json"), at("link.json"));
    fs::create_hard_link(at("p.json"), at("hard.json"));
    fs::create_symlink(at("new.csv"), at("dangling.csv"));
    put(at("other.json"), "{}");
    QVERIFY(sameFile(at("p.json"), at("p.json")));
    QVERIFY(sameFile(at("link.json"), at("p.json")));
    QVERIFY(sameFile(at("hard.json"), at("p.json")));
    QVERIFY(sameFile(at("sub/../p.json"), at("p.json")));
    QVERIFY(sameFile(at("dangling.csv"), at("sub/../new.csv")));
    QVERIFY(sameFile(at("x.csv"), at("sub/./../x.csv")));
    QVERIFY(!sameFile(at("other.json"), at("p.json")));
    QVERIFY(!sameFile("/dev/null", "/dev/null"));
    try {
      refuseSameFiles({{"the project file", at("p.json")}, {"--measured", ""}},
                      {{"--out", at("x.csv")}, {"--metrics", at("link.json")}, {"--report", at("sub/../x.csv")}});
      QFAIL("no error");
    } catch (const IoError& e) {
      const QString m = e.what();
      QVERIFY2(m.contains("--metrics '") && m.contains("link.json' is the same file as the project file"), qPrintable(m));
      QVERIFY2(m.contains("--report '") && m.contains("is the same file as --out") && m.count('\n') == 1, qPrintable(m));
    }
    refuseSameFiles({{"the project file", at("p.json")}}, {{"--out", at("x.csv")}, {"--metrics", at("y.csv")}});
  }
};

QTEST_APPLESS_MAIN(TestOutputFile)
#include "tst_output_file.moc"
