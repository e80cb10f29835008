$-------------------------------------------------------------------mdi_header
[MDI_HEADER]
 FILE_TYPE     =  'dpr'
 FILE_VERSION  =  4.0
 FILE_FORMAT   =  'ASCII'
(COMMENTS)
{comment_string}
'Front damper, digressive (fixture)'
$------------------------------------------------------------------------units
[UNITS]
 LENGTH  =  'mm'
 ANGLE   =  'degrees'
 FORCE   =  'newton'
 MASS    =  'kg'
 TIME    =  'second'
$------------------------------------------------------------------------curve
[curve]
{ vel   force }
         -1000.0                 -828.0
          -500.0                 -468.0
          -200.0                 -252.0
          -100.0                 -300.0
           -50.0                 -150.0
             0.0                    0.0
            50.0                  150.0
           100.0                  300.0
           200.0                  420.0
           500.0                  780.0
          1000.0                 1380.0
