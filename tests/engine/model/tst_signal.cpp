// SPDX-License-Identifier: GPL-3.0-or-later
// Load-case signals: values of every type, the papers' LC2 chirp, CSV tables and their errors.
#include <QtTest>

#include <cmath>
#include <fstream>

#include "engine/core/error.h"
#include "engine/model/signal.h"

using namespace ek;

namespace {
std::string writeTemp(const std::string& name, const std::string& text) {
  const std::string path = QDir::temp().filePath(QString::fromStdString(name)).toStdString();
  std::ofstream(path) << text;
  return path;
}
}  // namespace

class TestSignal : public QObject {
  Q_OBJECT
 private slots:
  void stepAndRamp() {
    SignalRow s;
    s.type = SignalType::Step, s.t0 = 5.0, s.value = 0.0, s.value2 = -2500.0;
    QCOMPARE(evaluate(s, 4.999), 0.0);
    QCOMPARE(evaluate(s, 5.0), -2500.0);
    SignalRow r;
    r.type = SignalType::Ramp, r.t0 = 1.0, r.t1 = 3.0, r.value = 10.0, r.value2 = 30.0;
    QCOMPARE(evaluate(r, 0.0), 10.0);
    QCOMPARE(evaluate(r, 2.0), 20.0);
    QCOMPARE(evaluate(r, 9.0), 30.0);
  }

  void sine() {
    SignalRow s;
    s.type = SignalType::Sine, s.value = 1.0, s.amplitude = 2.0, s.frequency = 4.0, s.phase = 0.5, s.t0 = 1.0;
    QCOMPARE(evaluate(s, 0.5), 1.0);
    QVERIFY(std::abs(evaluate(s, 1.3) - (1.0 + 2.0 * std::sin(2 * M_PI * 4.0 * 0.3 + 0.5))) < 1e-12);
  }

  // Paper 003 eq. (26): Fx = -2500 + 500 sin(2 pi/s^2 (t - 5)^2), 5 <= t <= 20 s (0 -> 30 Hz).
  void chirpIsThePapersLc2() {
    SignalRow s;
    s.type = SignalType::Chirp, s.value = -2500.0, s.amplitude = 500.0, s.t0 = 5.0, s.t1 = 20.0;
    s.frequency = 0.0, s.frequency2 = 30.0;
    for (double t = 0.0; t <= 25.0; t += 0.0137) {
      const double expect = (t >= 5.0 && t <= 20.0) ? -2500.0 + 500.0 * std::sin(2 * M_PI * (t - 5.0) * (t - 5.0)) : -2500.0;
      QVERIFY2(std::abs(evaluate(s, t) - expect) < 1e-9, qPrintable(QString("t = %1").arg(t)));
    }
  }

  // Paper 001 Sect. 5: a 0.1 m high, 3 m long cosine bump passed at 20 m/s (0.15 s), from t = 0.5 s.
  void bumpValueAndRate() {
    SignalRow s;
    s.type = SignalType::Bump, s.value = 0.01, s.amplitude = 0.1, s.t0 = 0.5, s.t1 = 0.65;
    QCOMPARE(evaluate(s, 0.4), 0.01);
    QCOMPARE(evaluate(s, 0.7), 0.01);
    QVERIFY(std::abs(evaluate(s, 0.575) - 0.11) < 1e-15);                     // crest half-way
    QVERIFY(std::abs(evaluate(s, 0.5375) - (0.01 + 0.05 * (1 - std::cos(M_PI / 2)))) < 1e-15);
    QCOMPARE(rate(s, 0.45), 0.0);
    QCOMPARE(rate(s, 0.66), 0.0);
    for (double t = 0.49; t <= 0.66; t += 0.0071) {  // rate = central difference (continuous at the ends)
      const double h = 1e-6, fd = (evaluate(s, t + h) - evaluate(s, t - h)) / (2 * h);
      QVERIFY2(std::abs(rate(s, t) - fd) < 1e-6 * 0.1 * 2 * M_PI / 0.15, qPrintable(QString("t = %1").arg(t)));
    }
  }

  void tableFromCsv() {
    const std::string path = writeTemp("ek_signal.csv", "time [s],force [N]\n0,0\n1,10\r\n3,-10\n");
    SignalRow s;
    s.type = SignalType::Table;
    s.table = readSignalTable(path);
    QCOMPARE(s.table.size(), std::size_t(3));
    QCOMPARE(evaluate(s, -1.0), 0.0);
    QCOMPARE(evaluate(s, 0.5), 5.0);
    QCOMPARE(evaluate(s, 2.0), 0.0);
    QCOMPARE(evaluate(s, 7.0), -10.0);
  }

  void tableErrorsNameLineAndColumn() {
    const std::string bad = writeTemp("ek_signal_bad.csv", "t,v\n0,1\n1,abc\n");
    try {
      readSignalTable(bad);
      QFAIL("no error");
    } catch (const ModelError& e) {
      QCOMPARE(QString::fromStdString(e.where().row), QString("line 3"));
      QCOMPARE(QString::fromStdString(e.where().field), QString("column 2"));
    }
    const std::string back = writeTemp("ek_signal_back.csv", "0,1\n2,1\n1,0\n");
    QVERIFY_THROWS_EXCEPTION(ModelError, readSignalTable(back));
    QVERIFY_THROWS_EXCEPTION(ModelError, readSignalTable("/nonexistent/signal.csv"));
  }

  // Numbers must be whole fields: no trailing letters, no third column, no hex, no inf.
  void tableNumbersAreWholeFields_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("says");
    QTest::newRow("trailing letters") << "0,0\n0.1abc,5xyz\n" << "\"0.1abc\" is not a finite decimal number";
    QTest::newRow("third column") << "0,0\n0.2,1;7\n" << "\"1;7\" is not a finite decimal number";
    QTest::newRow("three columns") << "0,0\n0.2,1,7\n" << "expected 2 columns 'time, value', found 3";
    QTest::newRow("hex") << "0,0\n0x10,3\n" << "\"0x10\" is not a finite decimal number";
    QTest::newRow("infinity") << "0,0\n1,inf\n" << "\"inf\" is not a finite decimal number";
    QTest::newRow("overflow") << "0,0\n1,1e999\n" << "\"1e999\" is not a finite decimal number";
  }
  void tableNumbersAreWholeFields() {
    QFETCH(QString, text);
    QFETCH(QString, says);
    const std::string path = writeTemp("ek_signal_strict.csv", text.toStdString());
    try {
      readSignalTable(path);
      QFAIL("no error");
    } catch (const ModelError& e) {
      QVERIFY2(QString(e.what()).contains(says), e.what());
      QCOMPARE(QString::fromStdString(e.where().row), QString("line 2"));
    }
    // Semicolon-separated files are read as such.
    const std::string semi = writeTemp("ek_signal_semi.csv", "0;1\n2;3\n");
    QCOMPARE(readSignalTable(semi).back()[1], 3.0);
  }

  // A NaN time must not run past the table (it compares false with every point).
  void tableAtNaNIsNaN() {
    SignalRow s;
    s.type = SignalType::Table;
    s.table = {{0.0, 1.0}, {1.0, 2.0}};
    QVERIFY(std::isnan(evaluate(s, std::numeric_limits<double>::quiet_NaN())));
    QCOMPARE(evaluate(s, std::numeric_limits<double>::infinity()), 2.0);
    QCOMPARE(evaluate(s, -std::numeric_limits<double>::infinity()), 1.0);
  }
};

QTEST_APPLESS_MAIN(TestSignal)
#include "tst_signal.moc"
