// SPDX-License-Identifier: GPL-3.0-or-later
// A file as it must not be in ui/document: the check of the document layer rejects it
// (cmake/check_no_widgets.cmake, the test ui_document_refuses_widgets).
#include <QtWidgets/QLabel>
#include <QComboBox>

#include "ui/views/plot_panel.h"
