// SPDX-License-Identifier: GPL-3.0-or-later
// Numbers as text (text.h) are the same in every locale: parsed with from_chars, written with
// to_chars or printf under the C locale, also while the process runs in de_DE.UTF-8 (where the
// C library writes and reads 0,5). Values in messages are cut and escaped.
#include <QtTest>

#include <clocale>
#include <cmath>
#include <limits>
#include <locale>
#include <string>

#include "engine/core/text.h"

using namespace ek;

namespace {

/// Switches the process (C and C++) to a locale with a decimal comma for the test's scope.
class GermanLocale {
 public:
  GermanLocale() : previous_(std::setlocale(LC_ALL, nullptr)), cxx_(std::locale()) {
    ok_ = std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr;
    if (ok_) std::locale::global(std::locale("de_DE.UTF-8"));
  }
  ~GermanLocale() {
    std::setlocale(LC_ALL, previous_.c_str());
    std::locale::global(cxx_);
  }
  bool ok() const { return ok_; }

 private:
  std::string previous_;
  std::locale cxx_;
  bool ok_ = false;
};

}  // namespace

class TestText : public QObject {
  Q_OBJECT
 private slots:
  void decimalsAreWholeFiniteNumbers() {
    double v = 7.0;
    QVERIFY(parseDecimal("-1.5", v) && v == -1.5);
    QVERIFY(parseDecimal("+2", v) && v == 2.0);
    QVERIFY(parseDecimal(".5e-3", v) && v == 0.5e-3);
    QVERIFY(parseDecimal("1E3", v) && v == 1000.0);
    QVERIFY(parseDecimal("0.1", v) && v == 0.1);
    v = 7.0;
    for (const char* bad : {"", " 1", "1 ", "1,5", "0.1abc", "0x10", "inf", "nan", "-inf", "1e400", "+", "++1", "+-1",
                            "e5", ".", "1e", "--1"})
      QVERIFY2(!parseDecimal(bad, v) && v == 7.0, bad);
    long long n = 0;
    QVERIFY(parseInteger("42", n, 0, 100) && n == 42);
    QVERIFY(parseInteger("+3", n, 0, 100) && n == 3);
    QVERIFY(parseInteger("-3", n, -5, 100) && n == -3);
    for (const char* bad : {"", "101", "-6", "4.0", "1e2", "0x1", "99999999999999999999", "+-1"})
      QVERIFY2(!parseInteger(bad, n, -5, 100), bad);
  }

  void textIsTheSameInAGermanLocale() {
    const std::string shortest = shortestText(0.1), sig = significant(1234.5678, 6);
    const std::string formatted = cformat("%g|%.3f|%10.4e", 0.5, 2.25, 1234.5);
    char buf[64];
    csnprintf(buf, sizeof buf, "%.17g", 0.1);
    const std::string snprinted = buf;
    GermanLocale de;
    if (!de.ok()) QFAIL("the locale de_DE.UTF-8 is missing: scripts/setup-debian.sh generates it");
    // The C library itself now writes and reads a decimal comma: the test can fail.
    char raw[32];
    std::snprintf(raw, sizeof raw, "%g", 0.5);
    QCOMPARE(std::string(raw), std::string("0,5"));
    QCOMPARE(shortestText(0.1), shortest);
    QCOMPARE(significant(1234.5678, 6), sig);
    QCOMPARE(sig, std::string("1234.57"));
    QCOMPARE(cformat("%g|%.3f|%10.4e", 0.5, 2.25, 1234.5), formatted);
    QCOMPARE(formatted, std::string("0.5|2.250|1.2345e+03"));
    csnprintf(buf, sizeof buf, "%.17g", 0.1);
    QCOMPARE(std::string(buf), snprinted);
    double v = 0.0;
    QVERIFY(parseDecimal("0.000000", v) && v == 0.0);
    QVERIFY(parseDecimal("12.5", v) && v == 12.5);
    QVERIFY(!parseDecimal("12,5", v));
  }

  // RFC 4180 fields: plain text as it is; a comma, quote or line break quoted, quotes doubled.
  void csvFieldsQuoteWhatNeedsIt() {
    QCOMPARE(ek::csvField("wheel left toe [rad]"), std::string("wheel left toe [rad]"));
    QCOMPARE(ek::csvField("a,b"), std::string("\"a,b\""));
    QCOMPARE(ek::csvField("say \"hi\""), std::string("\"say \"\"hi\"\"\""));
    QCOMPARE(ek::csvField("two\nlines"), std::string("\"two\nlines\""));
    QCOMPARE(ek::csvField(""), std::string(""));
  }

  void messagesShowValuesCutAndEscaped() {
    QCOMPARE(printableExcerpt("wheel left"), std::string("wheel left"));
    QCOMPARE(printableExcerpt("Querlenker vorn links (Gummilager) äöü"), std::string("Querlenker vorn links (Gummilager) äöü"));
    QCOMPARE(printableExcerpt("a\nb\tc\x01\x7f"), std::string("a\\nb\\tc\\x01\\x7f"));
    QCOMPARE(printableExcerpt(std::string("\xff\xfe ok", 5)), std::string("\\xff\\xfe ok"));
    const std::string huge(10 << 20, 'x');
    const std::string cut = printableExcerpt(huge);
    QCOMPARE(cut, std::string(80, 'x') + "... (10485760 bytes)");
    // A cut never splits a UTF-8 character.
    std::string umlauts;
    for (int k = 0; k < 100; ++k) umlauts += "\xc3\xa4";
    QCOMPARE(printableExcerpt(umlauts, 3), std::string("\xc3\xa4\xc3\xa4\xc3\xa4... (200 bytes)"));
  }

  /// What the runners print reaches the terminal without its control sequences: a load case
  /// named "LC<ESC>[2J" cannot clear the screen, a note cannot ring the bell; lines, tabs, the
  /// progress bar's carriage return and UTF-8 text pass.
  void terminalTextHasNoControls() {
    QCOMPARE(terminalText("line 1\n\tLC1 \xc3\xa4\r"), std::string("line 1\n\tLC1 \xc3\xa4\r"));
    QCOMPARE(terminalText("LC\x1b[2J\x07\x08\x7f"), std::string("LC\\x1b[2J\\x07\\x08\\x7f"));
    QCOMPARE(terminalText("csi \xc2\x9b" "31m, nbsp \xc2\xa0"), std::string("csi \\xc2\\x9b31m, nbsp \xc2\xa0"));
    QCOMPARE(terminalText(std::string("\xff\0z", 3)), std::string("\\xff\\x00z"));
  }
};

QTEST_APPLESS_MAIN(TestText)
#include "tst_text.moc"
