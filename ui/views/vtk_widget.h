// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file vtk_widget.h
/// A QOpenGLWidget that hosts a VTK render window (Debian's VTK Qt module is built for Qt 5, so
/// VTK is embedded directly: vtkGenericOpenGLRenderWindow on the widget's context, see
/// ../shared/notes/qt6-vtk.md). Mouse events go to VTK's trackball-camera interactor.

#include <QOpenGLWidget>
#include <vtkNew.h>
#include <vtkSmartPointer.h>

class vtkGenericOpenGLRenderWindow;
class vtkGenericRenderWindowInteractor;
class vtkRenderer;

namespace ek::ui {

class VtkWidget : public QOpenGLWidget {
  Q_OBJECT
 public:
  explicit VtkWidget(QWidget* parent = nullptr);
  ~VtkWidget() override;
  vtkRenderer* renderer() const;
  vtkGenericOpenGLRenderWindow* renderWindow() const;
  /// Sets the default surface format VTK needs; call before QApplication is created.
  static void setDefaultSurfaceFormat();
  /// Duration of the last and the longest render [ms] (software GL under Xvfb is slow).
  double lastRenderMs() const { return lastRenderMs_; }
  double maxRenderMs() const { return maxRenderMs_; }
  /// Frames rendered so far.
  long long renders() const { return renders_; }

 signals:
  /// A frame was rendered (its duration in lastRenderMs()).
  void rendered();

 protected:
  void initializeGL() override;
  void resizeGL(int w, int h) override;
  void paintGL() override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;

 private:
  void cleanup();
  void forward(QMouseEvent* e, unsigned long vtkEvent);
  vtkSmartPointer<vtkGenericOpenGLRenderWindow> window_;
  vtkSmartPointer<vtkGenericRenderWindowInteractor> interactor_;
  vtkSmartPointer<vtkRenderer> renderer_;
  bool initialized_ = false;
  double lastRenderMs_ = 0.0, maxRenderMs_ = 0.0;
  long long renders_ = 0;
};

}  // namespace ek::ui
