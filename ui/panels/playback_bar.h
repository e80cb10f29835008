// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file playback_bar.h
/// Playback of a run's poses under the 3D view (kPoseRate per simulated second): play / pause at
/// a chosen speed, one pose back or on, a time slider and the time. Disabled while a run goes on.

#include <QWidget>
#include <vector>

#include "ui/document/run_data.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QTimer;

namespace ek::ui {

class PlaybackBar : public QWidget {
  Q_OBJECT
 public:
  /// Plays `frames` (not owned; the run controller's poses).
  explicit PlaybackBar(const std::vector<Frame>* frames, QWidget* parent = nullptr);
  /// A run starts (true: no playback until it ends) or ended (false: the slider at its last pose).
  void setRunning(bool running);
  /// Nothing to play (reset, another project).
  void clear();
  void stop();
  bool isPlaying() const;
  QSlider* slider() const { return slider_; }
  QLabel* timeLabel() const { return time_; }
  QPushButton* playButton() const { return play_; }

 signals:
  /// The pose to show in the 3D view.
  void frameChosen(const ek::ui::Frame& frame);

 private:
  const std::vector<Frame>* frames_;
  QPushButton *play_, *back_, *on_;
  QComboBox* speed_;
  QSlider* slider_;
  QLabel* time_;
  QTimer* timer_;
  double playTime_ = 0.0;  ///< simulated time of the playback
  bool running_ = false;
};

}  // namespace ek::ui
