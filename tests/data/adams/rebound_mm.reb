[MDI_HEADER]
FILE_TYPE     =  'reb'
FILE_VERSION  =  4.0
[UNITS]
 LENGTH = 'mm'
 ANGLE  = 'degrees'
 FORCE  = 'newton'
 MASS   = 'kg'
 TIME   = 'second'
[CURVE]
{ disp      force }
  0.0       0.0
  5.0       1000.0
  10.0      6000.0
