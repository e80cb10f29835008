// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/views/vtk_widget.h"

#include <QElapsedTimer>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QSurfaceFormat>
#include <QWheelEvent>
#include <vtkCallbackCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkRenderer.h>

namespace ek::ui {

void VtkWidget::setDefaultSurfaceFormat() {
  QSurfaceFormat f;
  f.setRenderableType(QSurfaceFormat::OpenGL);
  f.setVersion(3, 2);
  f.setProfile(QSurfaceFormat::CoreProfile);
  f.setRedBufferSize(8);
  f.setGreenBufferSize(8);
  f.setBlueBufferSize(8);
  f.setAlphaBufferSize(8);
  f.setDepthBufferSize(24);
  f.setStencilBufferSize(8);
  f.setSamples(0);  // VTK does its own multisampling; blitting into a multisampled target is invalid
  QSurfaceFormat::setDefaultFormat(f);
}

VtkWidget::VtkWidget(QWidget* parent) : QOpenGLWidget(parent) {
  window_ = vtkSmartPointer<vtkGenericOpenGLRenderWindow>::New();
  interactor_ = vtkSmartPointer<vtkGenericRenderWindowInteractor>::New();
  renderer_ = vtkSmartPointer<vtkRenderer>::New();
  window_->SetMultiSamples(0);
  window_->AddRenderer(renderer_);
  window_->SetInteractor(interactor_);
  interactor_->SetRenderWindow(window_);
  interactor_->EnableRenderOff();  // Qt decides when to paint
  vtkNew<vtkInteractorStyleTrackballCamera> style;
  interactor_->SetInteractorStyle(style);
  // VTK asks many times per render to make its context current: only switch when needed,
  // otherwise Qt's framebuffer would be rebound behind VTK's back (black pane).
  auto makeCurrent = vtkSmartPointer<vtkCallbackCommand>::New();
  makeCurrent->SetClientData(this);
  makeCurrent->SetCallback([](vtkObject*, unsigned long, void* self, void*) {
    auto* w = static_cast<VtkWidget*>(self);
    if (QOpenGLContext::currentContext() != w->context()) w->makeCurrent();
  });
  window_->AddObserver(vtkCommand::WindowMakeCurrentEvent, makeCurrent);
  auto isCurrent = vtkSmartPointer<vtkCallbackCommand>::New();
  isCurrent->SetClientData(this);
  isCurrent->SetCallback([](vtkObject*, unsigned long, void* self, void* data) {
    auto* w = static_cast<VtkWidget*>(self);
    *static_cast<bool*>(data) = QOpenGLContext::currentContext() == w->context();
  });
  window_->AddObserver(vtkCommand::WindowIsCurrentEvent, isCurrent);
  auto render = vtkSmartPointer<vtkCallbackCommand>::New();
  render->SetClientData(this);
  render->SetCallback([](vtkObject*, unsigned long, void* self, void*) { static_cast<VtkWidget*>(self)->update(); });
  interactor_->AddObserver(vtkCommand::RenderEvent, render);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(200, 150);
}

VtkWidget::~VtkWidget() {
  makeCurrent();
  cleanup();
  if (context()) disconnect(context(), &QOpenGLContext::aboutToBeDestroyed, this, nullptr);
}

void VtkWidget::cleanup() {
  if (!initialized_) return;
  window_->Finalize();
  initialized_ = false;
}

vtkRenderer* VtkWidget::renderer() const { return renderer_; }
vtkGenericOpenGLRenderWindow* VtkWidget::renderWindow() const { return window_; }

void VtkWidget::initializeGL() {
  connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
    makeCurrent();
    cleanup();
  });
  window_->SetOwnContext(false);
  window_->SetFrameBlitModeToBlitToCurrent();
  window_->InitializeFromCurrentContext();
  initialized_ = true;
}

void VtkWidget::resizeGL(int w, int h) {
  const double r = devicePixelRatioF();
  window_->SetSize(static_cast<int>(w * r), static_cast<int>(h * r));
  interactor_->SetSize(static_cast<int>(w * r), static_cast<int>(h * r));
  interactor_->ConfigureEvent();
}

void VtkWidget::paintGL() {
  if (!initialized_) return;
  QElapsedTimer t;
  t.start();
  window_->Render();
  lastRenderMs_ = t.nsecsElapsed() * 1e-6;
  maxRenderMs_ = std::max(maxRenderMs_, lastRenderMs_);
  ++renders_;
  emit rendered();
}

void VtkWidget::forward(QMouseEvent* e, unsigned long vtkEvent) {
  const double r = devicePixelRatioF();
  interactor_->SetEventInformationFlipY(static_cast<int>(e->position().x() * r), static_cast<int>(e->position().y() * r),
                                        (e->modifiers() & Qt::ControlModifier) ? 1 : 0,
                                        (e->modifiers() & Qt::ShiftModifier) ? 1 : 0);
  interactor_->InvokeEvent(vtkEvent, e);
}

void VtkWidget::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton) forward(e, vtkCommand::LeftButtonPressEvent);
  else if (e->button() == Qt::MiddleButton) forward(e, vtkCommand::MiddleButtonPressEvent);
  else if (e->button() == Qt::RightButton) forward(e, vtkCommand::RightButtonPressEvent);
}
void VtkWidget::mouseReleaseEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton) forward(e, vtkCommand::LeftButtonReleaseEvent);
  else if (e->button() == Qt::MiddleButton) forward(e, vtkCommand::MiddleButtonReleaseEvent);
  else if (e->button() == Qt::RightButton) forward(e, vtkCommand::RightButtonReleaseEvent);
}
void VtkWidget::mouseMoveEvent(QMouseEvent* e) { forward(e, vtkCommand::MouseMoveEvent); }
void VtkWidget::wheelEvent(QWheelEvent* e) {
  const double r = devicePixelRatioF();
  interactor_->SetEventInformationFlipY(static_cast<int>(e->position().x() * r), static_cast<int>(e->position().y() * r));
  interactor_->InvokeEvent(e->angleDelta().y() > 0 ? vtkCommand::MouseWheelForwardEvent
                                                   : vtkCommand::MouseWheelBackwardEvent,
                           e);
}

}  // namespace ek::ui
