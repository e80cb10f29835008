// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/playback_bar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QTimer>
#include <algorithm>

namespace ek::ui {

PlaybackBar::PlaybackBar(const std::vector<Frame>* frames, QWidget* parent)
    : QWidget(parent), frames_(frames), timer_(new QTimer(this)) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  play_ = new QPushButton(tr("Play"), this);
  play_->setToolTip(tr("Play the run's poses back (from the start when at the end)"));
  back_ = new QPushButton(QStringLiteral("<"), this);
  on_ = new QPushButton(QStringLiteral(">"), this);
  back_->setToolTip(tr("One pose back"));
  on_->setToolTip(tr("One pose on"));
  for (auto* b : {back_, on_}) b->setMaximumWidth(28);
  speed_ = new QComboBox(this);
  for (double f : {0.1, 0.25, 0.5, 1.0, 2.0, 5.0}) speed_->addItem(QStringLiteral("%1x").arg(f), f);
  speed_->setCurrentIndex(3);
  speed_->setToolTip(tr("Playback speed: simulated seconds per second"));
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setEnabled(false);
  time_ = new QLabel(this);
  time_->setMinimumWidth(110);
  for (QWidget* w : {static_cast<QWidget*>(play_), static_cast<QWidget*>(back_), static_cast<QWidget*>(on_),
                     static_cast<QWidget*>(speed_)})
    row->addWidget(w);
  row->addWidget(slider_, 1);
  row->addWidget(time_);
  timer_->setInterval(33);
  connect(timer_, &QTimer::timeout, this, [this] {
    if (frames_->empty() || running_) return stop();
    playTime_ += speed_->currentData().toDouble() * timer_->interval() * 1e-3;
    auto it = std::upper_bound(frames_->begin(), frames_->end(), playTime_,
                               [](double t, const Frame& f) { return t < f.t; });
    const int i = std::max(0, static_cast<int>(it - frames_->begin()) - 1);
    slider_->setValue(i);
    if (i + 1 >= static_cast<int>(frames_->size())) stop();
  });
  connect(play_, &QPushButton::clicked, this, [this] {
    if (timer_->isActive()) return stop();
    if (frames_->empty() || running_) return;
    if (slider_->value() + 1 >= static_cast<int>(frames_->size())) slider_->setValue(0);
    playTime_ = (*frames_)[slider_->value()].t;
    timer_->start();
    play_->setText(tr("Pause"));
  });
  connect(back_, &QPushButton::clicked, this, [this] { slider_->setValue(slider_->value() - 1); });
  connect(on_, &QPushButton::clicked, this, [this] { slider_->setValue(slider_->value() + 1); });
  connect(slider_, &QSlider::valueChanged, this, [this](int v) {
    if (running_ || v < 0 || v >= static_cast<int>(frames_->size())) return;
    time_->setText(tr("t = %1 s").arg((*frames_)[v].t, 0, 'f', 3));
    emit frameChosen((*frames_)[v]);
  });
  for (QWidget* w : {static_cast<QWidget*>(play_), static_cast<QWidget*>(back_), static_cast<QWidget*>(on_)})
    connect(slider_, &QSlider::rangeChanged, w, [this, w] { w->setEnabled(slider_->isEnabled()); });
}

void PlaybackBar::setRunning(bool running) {
  running_ = running;
  stop();
  if (running || frames_->empty()) {
    slider_->setEnabled(false);
    slider_->setRange(0, 0);
    time_->clear();
    return;
  }
  slider_->setEnabled(true);
  slider_->setRange(0, static_cast<int>(frames_->size()) - 1);
  slider_->setValue(slider_->maximum());
  time_->setText(tr("t = %1 s").arg(frames_->back().t, 0, 'f', 3));
}

void PlaybackBar::clear() {
  stop();
  slider_->setEnabled(false);
  slider_->setRange(0, 0);
  time_->clear();
}

void PlaybackBar::stop() {
  timer_->stop();
  play_->setText(tr("Play"));
}

bool PlaybackBar::isPlaying() const { return timer_->isActive(); }

}  // namespace ek::ui
